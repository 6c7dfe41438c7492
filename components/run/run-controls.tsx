"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { cancelRunAction } from "@/app/actions/cancel-run";
import { useCan } from "../auth/viewer-context";
import { refreshRunView } from "../decisions/decide-turn-mutation";
import { describeActionError } from "../decisions/describe-action-error";
import { ConfirmDialog } from "../ui/confirm-dialog";

/**
 * Cancel the current turn (the run goes on) or the whole run (it ends
 * CANCELLED, after a confirmation), docs/decisions.md#cancelling. A finished run has nothing to
 * cancel: no buttons.
 */
export function RunControls({ runId, isActive }: { runId: string; isActive: boolean }) {
  const queryClient = useQueryClient();
  const cancel = useMutation({
    mutationFn: (scope: "turn" | "run") => cancelRunAction({ runId, scope }),
    onSettled: () => refreshRunView(queryClient, runId),
  });
  const [isConfirming, setIsConfirming] = useState(false);
  const canCancel = useCan("operator");
  const refusal = cancel.data && !cancel.data.ok ? describeActionError(cancel.data.error) : null;
  if (!canCancel || (!isActive && !refusal)) return null;
  return (
    <div className="run-controls">
      {isActive && (
        <>
          <button type="button" disabled={cancel.isPending} onClick={() => cancel.mutate("turn")}>
            Cancel turn
          </button>
          <button
            type="button"
            className="danger"
            disabled={cancel.isPending}
            onClick={() => setIsConfirming(true)}
          >
            Cancel run
          </button>
          <ConfirmDialog
            isOpen={isConfirming}
            title="Cancel this run?"
            confirmLabel="Cancel the run"
            cancelLabel="Keep it running"
            isDanger
            onConfirm={() => cancel.mutate("run")}
            onClose={() => setIsConfirming(false)}
          >
            <p>
              It ends for good as CANCELLED and cannot be resumed. Calls that have not run are not sent; what
              already ran stays done.
            </p>
          </ConfirmDialog>
        </>
      )}
      {refusal && (
        <p className="alert" role="alert">
          <strong>{refusal.title}.</strong> {refusal.detail}
        </p>
      )}
    </div>
  );
}
