"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { decideTurnAction } from "@/app/actions/decide-turn";
import type { ActionError, ActionResult } from "@/lib/http/action-result";
import { queryKeys } from "@/lib/queries/run-queries";
import type { DecisionResult } from "@/lib/runtime/coordinator/decide";
import { useActorName } from "../use-actor-name";

export interface DecideInput {
  approve: boolean;
  turnDigest: string;
  reason?: string;
}

/**
 * Sends a decision for the turn that was shown. A refusal is a value, not an
 * exception; whatever the outcome, the run's cached view and the inbox are
 * refreshed, so a 409 shows the current turn and a 503 the still-waiting run.
 */
export function useDecideTurn(runId: string) {
  const queryClient = useQueryClient();
  const [actor] = useActorName();
  const mutation = useMutation<ActionResult<DecisionResult>, Error, DecideInput>({
    mutationFn: (input) =>
      decideTurnAction({
        runId,
        approve: input.approve,
        turnDigest: input.turnDigest,
        actor,
        reason: input.reason?.trim() ? input.reason.trim() : null,
      }),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.runView(runId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.inbox() }),
      ]),
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
