import type { PendingTurn } from "@/lib/runtime/browser";

/**
 * How far a turn that needs several approvers has got (docs/policies.md#quorum): "1 of 2
 * approvals", and who approved so far. Nothing for a turn one approval decides.
 */
export function QuorumProgress({ pending }: { pending: Pick<PendingTurn, "quorum" | "approvals"> }) {
  if (!pending.quorum) return null;
  const approvals = pending.approvals ?? [];
  return (
    <p className="quorum-progress" role="status">
      <strong>
        {approvals.length} of {pending.quorum} approvals
      </strong>
      {approvals.length > 0 ? ` · approved by ${approvals.map((approval) => approval.actor).join(", ")}` : ""}
    </p>
  );
}

/** True when the turn needs several approvers: each approves the barrier alone, and grants none. */
export function needsSeveralApprovers(pending: Pick<PendingTurn, "quorum">): boolean {
  return (pending.quorum ?? 1) > 1;
}
