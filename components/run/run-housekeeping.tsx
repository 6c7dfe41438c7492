"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { archiveRunAction, deleteRunAction } from "@/app/actions/run-housekeeping";
import { describeActionError } from "../decisions/describe-action-error";
import { ConfirmDialog } from "../ui/confirm-dialog";

/** What the page knows of the run as a record: whether it is archived, and whether the viewer may tidy it. */
export interface HousekeepingState {
  archivedAt: string | null;
  /** The viewer started the run or is an admin (the server checks again). */
  canTidy: boolean;
}

/**
 * Archive / Unarchive and Delete (docs/housekeeping.md): for the run's starter
 * or an admin. Delete asks first and is offered only once the run has ended;
 * the server refuses it while the run runs or waits anyway.
 */
export function RunHousekeeping({
  runId,
  runName,
  isFinished,
  initial,
}: {
  runId: string;
  runName: string;
  isFinished: boolean;
  initial: HousekeepingState;
}) {
  const router = useRouter();
  const [archivedAt, setArchivedAt] = useState(initial.archivedAt);
  const [isConfirming, setIsConfirming] = useState(false);
  const archive = useMutation({
    mutationFn: (archived: boolean) => archiveRunAction({ runId, archived }),
    onSuccess: (result) => {
      if (result.ok) setArchivedAt(result.data.archivedAt);
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteRunAction({ runId }),
    onSuccess: (result) => {
      if (result.ok) router.push(`/runs?deleted=${encodeURIComponent(runName || runId)}`);
    },
  });
  if (!initial.canTidy) return null;
  const failed = [archive.data, remove.data].find((result) => result && !result.ok);
  const refusal = failed && !failed.ok ? describeActionError(failed.error) : null;
  const isBusy = archive.isPending || remove.isPending;
  return (
    <div className="run-housekeeping">
      {archivedAt && <span className="archived-badge">Archived</span>}
      <button type="button" disabled={isBusy} onClick={() => archive.mutate(archivedAt === null)}>
        {archivedAt === null ? "Archive" : "Unarchive"}
      </button>
      {isFinished && (
        <button type="button" className="danger" disabled={isBusy} onClick={() => setIsConfirming(true)}>
          Delete run
        </button>
      )}
      <ConfirmDialog
        isOpen={isConfirming}
        title="Delete this run?"
        confirmLabel="Delete the run"
        cancelLabel="Keep it"
        isDanger
        onConfirm={() => remove.mutate()}
        onClose={() => setIsConfirming(false)}
      >
        <p>
          Its steps, events, files and report are removed for good. Its decisions stay in the audit, under its
          name; the deletion is recorded too.
        </p>
      </ConfirmDialog>
      {refusal && (
        <p className="alert" role="alert">
          <strong>{refusal.title}.</strong> {refusal.detail}
        </p>
      )}
    </div>
  );
}
