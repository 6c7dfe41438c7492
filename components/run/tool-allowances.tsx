"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { revokeToolAllowanceAction } from "@/app/actions/revoke-tool-allowance";
import { grantsQueryOptions } from "@/lib/queries/query-options";
import type { RunView } from "@/lib/runtime/browser";
import { isTerminalStatus } from "@/lib/runtime/run/is-terminal-status";
import { useCan } from "../auth/viewer-context";
import { refreshRunView } from "../decisions/decide-turn-mutation";
import { describeActionError } from "../decisions/describe-action-error";
import { GrantList } from "../grants/grant-list";

/**
 * What this run may call without asking: the grants scoped to this run (docs/policies.md#grants)
 * and, for runs from before them, its "always allow" tools; who granted each, and a way to take it
 * back: from the run's next step, calls it covered wait for a decision again. A finished run lists
 * them without a Revoke button: there is no next step to apply it to. Grants for an agent, a user
 * or everyone are on /grants.
 */
export function ToolAllowances({ view }: { view: RunView }) {
  const canRevoke = useCan("approver") && !isTerminalStatus(view.status);
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: (toolName: string) => revokeToolAllowanceAction({ runId: view.runId, toolName }),
    onSettled: () => refreshRunView(queryClient, view.runId),
  });
  const granted = Object.entries(view.allowedTools);
  const runGrants = useQuery(grantsQueryOptions(view.runId));
  if (granted.length === 0 && (runGrants.data?.length ?? 0) === 0) return null;
  const failed = revoke.data && !revoke.data.ok ? describeActionError(revoke.data.error) : null;
  return (
    <section className="panel" aria-labelledby="allowances-heading">
      <h2 id="allowances-heading">Allowed without asking in this run</h2>
      <p className="muted">
        These calls run without asking; each is audited as an automatic approval naming its grant. Grants for
        an agent, a user or everyone: <Link href="/grants">all live grants</Link>.
      </p>
      <GrantList runId={view.runId} label="Grants for this run" canRevoke={canRevoke} hideWhenEmpty />
      {failed && (
        <p className="alert" role="alert">
          <strong>{failed.title}.</strong> {failed.detail}
        </p>
      )}
      {granted.length > 0 && (
        <ul className="allowances" aria-label="Always allowed tools">
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
      )}
    </section>
  );
}
