"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { decideTurnAction } from "@/app/actions/decide-turn";
import type { ActionError, ActionResult } from "@/lib/http/action-result";
import { queryKeys } from "@/lib/queries/run-queries";
import type { DecisionResult } from "@/lib/runtime";

export interface DecideInput {
  approve: boolean;
  turnDigest: string;
  /** A denial's reply to the model. */
  reason?: string;
  /** Approvals only: the barrier's arguments as the approver changed them. */
  editedArguments?: Record<string, unknown>;
  /** Approvals only: `turn` approves every gate of the pending turn. */
  scope?: "gate" | "turn";
  /** Approvals only: later calls of the barrier's tool in this run need no approval. */
  alwaysAllow?: boolean;
}

/**
 * Sends a decision for the turn that was shown. A refusal is a value, not an
 * exception; whatever the outcome, the run's cached view is refreshed, so a
 * 409 shows the current turn and a 503 the still-waiting run. `onDecided`
 * hears of each decision that took effect, `onRefused` of each that did not.
 */
export function useDecideTurn(
  runId: string,
  options: { onDecided?(input: DecideInput): void; onRefused?(): void } = {},
) {
  const queryClient = useQueryClient();
  const mutation = useMutation<ActionResult<DecisionResult>, Error, DecideInput>({
    mutationFn: ({ reason, ...input }) =>
      decideTurnAction({ runId, ...input, reason: reason?.trim() ? reason.trim() : null }),
    // The run page refetches its view (it only ever moves forward), so a refused
    // decision shows the current turn even when this tab's stream is behind.
    // The inbox needs nothing: its stream sends a new snapshot after every change.
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.runView(runId) }),
    onSuccess: (result, input) => {
      if (result.ok) options.onDecided?.(input);
      else options.onRefused?.();
    },
    onError: () => options.onRefused?.(),
  });
  const result = mutation.data;
  const refusal: ActionError | null =
    result && !result.ok
      ? result.error
      : mutation.error
        ? { code: "internal_error", status: 0, message: "The server could not be reached." }
        : null;
  return {
    decide: mutation.mutate,
    isPending: mutation.isPending,
    refusal,
    lastInput: mutation.variables,
    reset: mutation.reset,
  };
}
