"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { revokeGrantAction } from "@/app/actions/revoke-grant";
import { grantsQueryOptions, queryKeys } from "@/lib/queries/query-options";
import { useCan } from "../auth/viewer-context";
import { describeActionError } from "../decisions/describe-action-error";
import { describeGrantTerms } from "./describe-grant-terms";

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
