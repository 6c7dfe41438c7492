"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { revokeGrantAction } from "@/app/actions/revoke-grant";
import { grantsQueryOptions, queryKeys } from "@/lib/queries/query-options";
import { scenarioNameOfAgent, type ToolGrant } from "@/lib/runtime/browser";
import { useCan } from "../auth/viewer-context";
import { describeActionError } from "../decisions/describe-action-error";

const SCOPES: Record<ToolGrant["scope"], (grant: ToolGrant) => string> = {
  run: () => "this run",
  agent: (grant) => {
    const agent = grant.agent ?? "";
    // A scenario is the agent by its content too, which its name alone does not show.
    const scenario = scenarioNameOfAgent(agent);
    if (scenario !== null) return `agent ${scenario} as it was when granted`;
    const name = agent.replace(/^agent:/, "");
    // An outside agent's name is only whose it is together with its owner's.
    return grant.agentOwnerName === null ? `agent ${name}` : `agent ${name} of ${grant.agentOwnerName}`;
  },
  user: (grant) => `runs started by user ${grant.starterId ?? ""}`,
  everyone: () => "everyone",
};

/** One grant in words: "read_file for this run, when args.path…, until 17:00, 2 of 5 uses, by alice". */
export function describeGrantTerms(grant: ToolGrant): string {
  const parts = [`for ${SCOPES[grant.scope](grant)}`];
  if (grant.condition) parts.push(`when ${grant.condition}`);
  parts.push(grant.expiresAt ? `until ${new Date(grant.expiresAt).toLocaleString()}` : "until revoked");
  parts.push(
    grant.maxUses === null
      ? `${grant.uses} ${grant.uses === 1 ? "use" : "uses"}`
      : `${grant.uses} of ${grant.maxUses} uses`,
  );
  if (grant.toolFingerprint) parts.push(`definition ${grant.toolFingerprint.slice(0, 8)}`);
  parts.push(`given by ${grant.createdByName}`);
  return parts.join(", ");
}

/**
 * The live grants (docs/policies.md#grants), all or one run's, each with a Revoke button for
 * approvers (the server lets only the giver or an admin). Renders nothing when `hideWhenEmpty` and
 * there are none.
 */
export function GrantList({
  runId,
  label,
  canRevoke = true,
  hideWhenEmpty = false,
}: {
  runId?: string;
  label: string;
  canRevoke?: boolean;
  hideWhenEmpty?: boolean;
}) {
  const queryClient = useQueryClient();
  const grants = useQuery(grantsQueryOptions(runId));
  const isApprover = useCan("approver");
  const revoke = useMutation({
    mutationFn: (grantId: string) => revokeGrantAction({ grantId }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.grants() }),
  });
  const failed = revoke.data && !revoke.data.ok ? describeActionError(revoke.data.error) : null;
  if (grants.isPending) return hideWhenEmpty ? null : <p className="muted">Loading grants…</p>;
  if (grants.isError) {
    return (
      <p className="alert" role="alert">
        The grants could not be read: {grants.error.message}{" "}
        <button type="button" onClick={() => grants.refetch()}>
          Try again
        </button>
      </p>
    );
  }
  if (grants.data.length === 0) return hideWhenEmpty ? null : <p className="muted">No live grants.</p>;
  return (
    <>
      {failed && (
        <p className="alert" role="alert">
          <strong>{failed.title}.</strong> {failed.detail}
        </p>
      )}
      <ul className="allowances" aria-label={label}>
        {grants.data.map((grant) => (
          <li key={grant.id}>
            <span>
              <span className="call-name">{grant.toolName}</span> {describeGrantTerms(grant)}{" "}
              <code className="muted">grant {grant.id.slice(0, 8)}</code>
            </span>
            {canRevoke && isApprover && (
              <button
                type="button"
                disabled={revoke.isPending}
                onClick={() => revoke.mutate(grant.id)}
                aria-label={`Revoke grant ${grant.id.slice(0, 8)} of ${grant.toolName}`}
              >
                Revoke
              </button>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
