"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { decideTurnAction } from "@/app/actions/decide-turn";
import type { ActionError } from "@/lib/wire/action-result";
import { type DecideInput, decideTurnMutationOptions } from "./decide-turn-mutation";

export type { DecideInput } from "./decide-turn-mutation";

/**
 * Sends a decision for the turn that was shown. A refusal is a value, not an
 * exception; whatever the outcome, the run's cached view is refreshed in the
 * background. `onDecided` hears of each decision that took effect,
 * `onRefused` of each that did not.
 */
export function useDecideTurn(
  runId: string,
  options: { onDecided?(input: DecideInput): void; onRefused?(): void } = {},
) {
  const queryClient = useQueryClient();
  const mutation = useMutation(decideTurnMutationOptions(queryClient, runId, decideTurnAction, options));
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
