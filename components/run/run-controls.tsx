"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { cancelRunAction } from "@/app/actions/cancel-run";
import { useCan } from "../auth/viewer-context";
import { refreshRunView } from "../decisions/decide-turn-mutation";
import { describeActionError } from "../decisions/describe-action-error";

/** Cancel the current turn (the run goes on) or the whole run (it ends CANCELLED), SPEC §4. */
export function RunControls({ runId, isActive }: { runId: string; isActive: boolean }) {
  const queryClient = useQueryClient();
  const cancel = useMutation({
    mutationFn: (scope: "turn" | "run") => cancelRunAction({ runId, scope }),
    onSettled: () => refreshRunView(queryClient, runId),
  });
  const canCancel = useCan("operator");
  const refusal = cancel.data && !cancel.data.ok ? describeActionError(cancel.data.error) : null;
  if (!canCancel) return null;
  return (
    <div className="run-controls">
      <button type="button" disabled={!isActive || cancel.isPending} onClick={() => cancel.mutate("turn")}>
        Cancel turn
      </button>
      <button
        type="button"
        className="danger"
        disabled={!isActive || cancel.isPending}
        onClick={() => {
          if (window.confirm("Cancel this run? It ends for good; it cannot be resumed."))
            cancel.mutate("run");
        }}
      >
        Cancel run
      </button>
      {refusal && (
        <p className="alert" role="alert">
          <strong>{refusal.title}.</strong> {refusal.detail}
        </p>
      )}
    </div>
  );
}
