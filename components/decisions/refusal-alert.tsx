"use client";

import type { ActionError } from "@/lib/wire/action-result";
import { describeActionError } from "./describe-action-error";
import type { DecideInput } from "./use-decide-turn";

interface RefusalAlertProps {
  refusal: ActionError | null;
  /** The decision that was refused. */
  lastInput: DecideInput | undefined;
  /** The digest of the turn pending now. */
  pendingDigest: string | undefined;
  isPending: boolean;
  onRetry(input: DecideInput): void;
}

/**
 * A refused decision in plain words, as the inbox's rows and the run page's
 * approval panel both show it. Retry resends the same decision, so it is
 * offered only when the refusal may pass on a second try and the turn it was
 * for is still the one pending.
 */
export function RefusalAlert({ refusal, lastInput, pendingDigest, isPending, onRetry }: RefusalAlertProps) {
  if (!refusal) return null;
  const explained = describeActionError(refusal);
  const retry = explained.canRetry && lastInput?.turnDigest === pendingDigest ? lastInput : undefined;
  return (
    <div className="alert" role="alert" data-code={refusal.code}>
      <strong>{explained.title}.</strong> {explained.detail}
      {retry && (
        <button type="button" onClick={() => onRetry(retry)} disabled={isPending}>
          Retry
        </button>
      )}
    </div>
  );
}
