"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { revokeToolAllowanceAction } from "@/app/actions/revoke-tool-allowance";
import { isTerminalStatus } from "@/lib/run-view/is-terminal-status";
import type { RunView } from "@/lib/runtime/view/run-view";
import { useCan } from "../auth/viewer-context";
import { refreshRunView } from "../decisions/decide-turn-mutation";
import { describeActionError } from "../decisions/describe-action-error";

/**
 * The tools this run may call without asking ("always allow"), who granted
 * each, and a way to take it back: from the run's next step, calls of a
 * revoked tool wait for a decision again. A finished run lists its grants
 * without a Revoke button: there is no next step to apply it to.
 */
export function ToolAllowances({ view }: { view: RunView }) {
  const canRevoke = useCan("approver") && !isTerminalStatus(view.status);
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: (toolName: string) => revokeToolAllowanceAction({ runId: view.runId, toolName }),
    onSettled: () => refreshRunView(queryClient, view.runId),
  });
  const granted = Object.entries(view.allowedTools);
  if (granted.length === 0) return null;
  const failed = revoke.data && !revoke.data.ok ? describeActionError(revoke.data.error) : null;
  return (
    <section className="panel" aria-labelledby="allowances-heading">
      <h2 id="allowances-heading">Always allowed in this run</h2>
      <p className="muted">These tools run without asking; each call is audited as an automatic approval.</p>
      {failed && (
        <p className="alert" role="alert">
          <strong>{failed.title}.</strong> {failed.detail}
        </p>
      )}
      <ul className="allowances">
        {granted.map(([toolName, grant]) => (
          <li key={toolName}>
            <span>
              <span className="call-name">{toolName}</span>, granted by {grant.actor}
            </span>
            {canRevoke && (
              <button
                type="button"
                disabled={revoke.isPending}
                onClick={() => revoke.mutate(toolName)}
                aria-label={`Revoke always allow for ${toolName}`}
              >
                Revoke
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
