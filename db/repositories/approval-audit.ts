import { asc, eq, type SQL, sql } from "drizzle-orm";
import {
  type ApprovalRecord,
  decodeApprovalKind,
  decodeDecisionVia,
  type StoredApproval,
} from "@/lib/runtime";
import type { Db } from "../client";
import { approvals } from "../schema";
import { toStorableText } from "../storable-columns";
import { jsonParameter } from "./append-event";

/** An approvals row per record, as its JSON for `jsonb_to_recordset` (see `AUDIT_RECORD`). */
function auditRows(records: readonly ApprovalRecord[]) {
  return records.map((row) => ({
    run_id: row.runId,
    turn_digest: row.turnDigest,
    approve: row.approve,
    actor: toStorableText(row.actor),
    actor_id: row.actorId,
    reason: row.reason === null ? null : toStorableText(row.reason),
    decision_id: row.decisionId,
    kind: row.kind,
    granted_by: row.grantedBy,
    scope: row.scope,
    batch_index: row.batchIndex,
    call_id: toStorableText(row.callId),
    tool_name: toStorableText(row.toolName),
    arguments: toStorableText(row.arguments),
    arguments_digest: row.argumentsDigest,
    edited_arguments: row.editedArguments === null ? null : toStorableText(row.editedArguments),
    edited_digest: row.editedDigest,
    policy_version: row.policyVersion ?? null,
    policy_rule: row.policyRule ?? null,
    via: row.via?.kind ?? null,
    via_channel: row.via?.channel ?? null,
  }));
}

const AUDIT_COLUMNS =
  sql.raw(`run_id, turn_digest, approve, actor, actor_id, reason, decision_id, kind, granted_by,
  scope, batch_index, call_id, tool_name, arguments, arguments_digest, edited_arguments, edited_digest,
  policy_version, policy_rule, via, via_channel`);
const AUDIT_RECORD = sql.raw(`gate(run_id uuid, turn_digest text, approve boolean, actor text, actor_id text,
  reason text, decision_id uuid, kind text, granted_by uuid, scope text, batch_index int, call_id text,
  tool_name text, arguments text, arguments_digest text, edited_arguments text, edited_digest text,
  policy_version int, policy_rule text, via text, via_channel text)`);

/**
 * The CTE (`audited`) that appends audit rows in the statement that appends
 * events, only if those events are appended (it reads `inserted`): a
 * decision's rows with its `approval_decided`, `approval_expired` or
 * `approval_voided` or `approval_counted`; an
 * automatic approval's row with its call's `call_started`.
 */
export function auditInSameWrite(
  records: readonly ApprovalRecord[],
  withEvent: "decision" | "call_started",
): SQL {
  const matching =
    withEvent === "decision"
      ? sql`inserted.type in ('approval_decided', 'approval_expired', 'approval_voided', 'approval_counted')`
      : sql`inserted.type = 'call_started' and (inserted.payload->>'batchIndex')::int = gate.batch_index`;
  return sql`audited as (
    insert into approvals (${AUDIT_COLUMNS})
    select ${AUDIT_COLUMNS}
    from inserted, jsonb_to_recordset(${jsonParameter(auditRows(records))}::jsonb) as ${AUDIT_RECORD}
    where ${matching}
    order by gate.batch_index)`;
}

/** A run's audit rows, oldest first; an unknown kind is a damaged row, never guessed at. */
export async function readApprovals(db: Db, runId: string): Promise<StoredApproval[]> {
  const rows = await db.select().from(approvals).where(eq(approvals.runId, runId)).orderBy(asc(approvals.id));
  return rows.map((row) => ({
    turnDigest: row.turnDigest,
    approve: row.approve,
    actor: row.actor,
    actorId: row.actorId,
    reason: row.reason,
    decisionId: row.decisionId,
    kind: decodeApprovalKind(row.kind),
    grantedBy: row.grantedBy,
    scope: row.scope === "turn" ? "turn" : "gate",
    batchIndex: row.batchIndex,
    callId: row.callId,
    toolName: row.toolName,
    arguments: row.arguments,
    argumentsDigest: row.argumentsDigest,
    editedArguments: row.editedArguments,
    editedDigest: row.editedDigest,
    // Only a policy's automatic approval names a policy: other rows say nothing of one, as recorded.
    ...(row.policyRule !== null ? { policyVersion: row.policyVersion, policyRule: row.policyRule } : {}),
    // Only a decision through a link says how it came, as recorded.
    ...(row.via !== null ? { via: decodeDecisionVia(row.via, row.viaChannel) } : {}),
    decidedAt: row.decidedAt.toISOString(),
  }));
}
