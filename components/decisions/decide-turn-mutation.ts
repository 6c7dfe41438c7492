import type { MutationOptions, QueryClient } from "@tanstack/react-query";
import { queryKeys } from "@/lib/queries/query-options";
import type { DecisionResult, GrantRequest } from "@/lib/runtime/browser";
import type { ActionResult } from "@/lib/wire/action-result";

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
  /** Approvals only: a scoped grant of the barrier's tool (docs/policies.md#grants). */
  grant?: GrantRequest;
}

/** What the browser sends: the decide-turn server action, or a stand-in in tests. */
export type SendDecision = (
  input: Omit<DecideInput, "reason"> & { runId: string; reason: string | null },
) => Promise<ActionResult<DecisionResult>>;

/**
 * The decision mutation. It is over once the server answers: the run's view
 * is refreshed in the background (so a 409 shows the current turn and a 503
 * the still-waiting run), never awaited — the refetch of a whole view can
 * take seconds on a busy server, and the stream usually shows the next gate
 * before it lands, so "Sending your decision…" must not wait for it.
 */
export function decideTurnMutationOptions(
  queryClient: QueryClient,
  runId: string,
  send: SendDecision,
  options: { onDecided?(input: DecideInput): void; onRefused?(): void } = {},
): MutationOptions<ActionResult<DecisionResult>, Error, DecideInput> {
  return {
    mutationFn: ({ reason, ...input }) =>
      send({ runId, ...input, reason: reason?.trim() ? reason.trim() : null }),
    // The inbox needs nothing: its stream sends a new snapshot after every change.
    onSettled: () => {
      refreshRunView(queryClient, runId);
      // An approval may have given a grant (docs/policies.md#grants).
      void queryClient.invalidateQueries({ queryKey: queryKeys.grants() });
    },
    onSuccess: (result, input) => {
      if (result.ok) options.onDecided?.(input);
      else options.onRefused?.();
    },
    onError: () => options.onRefused?.(),
  };
}

/**
 * Refetches the run's view without making anyone wait for it (a view only
 * moves forward, so a late answer cannot undo what the stream showed).
 * Returns nothing on purpose: a mutation whose `onSettled` returns the
 * promise stays pending until the refetch lands.
 */
export function refreshRunView(queryClient: QueryClient, runId: string): void {
  void queryClient.invalidateQueries({ queryKey: queryKeys.runView(runId) });
}
