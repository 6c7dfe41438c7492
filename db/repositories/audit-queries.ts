import { and, desc, eq, ilike, lt, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../client";
import { accountEvents, approvals, runs, user } from "../schema";
import { NAME_HEAD_LENGTH } from "./run-queries";
import { containing, idStartsWith } from "./text-match";

/** What a row of the audit records: a person's approval or denial, an expired wait, or a grant's automatic approval. */
export type AuditOutcome = "approved" | "denied" | "expired" | "automatic" | "voided";

/** Which audit rows to list. */
export interface AuditFilter {
  outcome?: AuditOutcome;
  /** Part of the decider's name or email. */
  actor?: string;
  /** The gated tool's exact name. */
  tool?: string;
  /** Part of the run's name, or the start of its id. */
  run?: string;
}

/**
 * The decider's e-mail: their account's, or, once they were removed, the one
 * the accounts audit recorded at removal, so history still says who it was.
 */
const actorEmail = sql<
  string | null
>`coalesce(${user.email}, (select ${accountEvents.subjectEmail} from ${accountEvents} where ${accountEvents.subjectId} = ${approvals.actorId} and ${accountEvents.kind} = 'user_removed' order by ${accountEvents.id} desc limit 1))`;

/**
 * Audit rows newest first (by the append-only table's own id), before the row
 * `before` when paging, each with its run's name. Read only: the audit is
 * written in the same statement as the event of what it records, elsewhere.
 */
export async function listAuditRows(db: Db, page: { limit: number; before?: number; filter?: AuditFilter }) {
  const rows = await db
    .select({
      id: approvals.id,
      decidedAt: approvals.decidedAt,
      runId: approvals.runId,
      runName: runs.name,
      kind: approvals.kind,
      approve: approvals.approve,
      scope: approvals.scope,
      // The name as it was when they decided (its start: older names may be of any size), and
      // their email, which they cannot choose to resemble someone else's: the audit shows both.
      actor: sql<string>`left(${approvals.actor}, ${sql.raw(String(NAME_HEAD_LENGTH))})`,
      actorId: approvals.actorId,
      actorEmail,
      batchIndex: approvals.batchIndex,
      toolName: approvals.toolName,
      turnDigest: approvals.turnDigest,
      argumentsDigest: approvals.argumentsDigest,
      editedDigest: approvals.editedDigest,
      decisionId: approvals.decisionId,
      grantedBy: approvals.grantedBy,
      reason: approvals.reason,
    })
    .from(approvals)
    .innerJoin(runs, eq(runs.id, approvals.runId))
    .leftJoin(user, eq(user.id, approvals.actorId))
    .where(and(auditRowsMatching(page.filter ?? {}), page.before ? lt(approvals.id, page.before) : undefined))
    .orderBy(desc(approvals.id))
    .limit(page.limit);
  return rows.map(({ kind, approve, ...row }) => ({ ...row, outcome: outcomeOf(kind, approve) }));
}

function outcomeOf(kind: string, approve: boolean): AuditOutcome {
  if (kind === "expiry") return "expired";
  if (kind === "automatic") return "automatic";
  if (kind === "voided") return "voided";
  return approve ? "approved" : "denied";
}

function auditRowsMatching(filter: AuditFilter): SQL | undefined {
  const outcome: Record<AuditOutcome, SQL | undefined> = {
    approved: and(eq(approvals.kind, "decision"), eq(approvals.approve, true)),
    denied: and(eq(approvals.kind, "decision"), eq(approvals.approve, false)),
    expired: eq(approvals.kind, "expiry"),
    automatic: eq(approvals.kind, "automatic"),
    voided: eq(approvals.kind, "voided"),
  };
  return and(
    filter.outcome ? outcome[filter.outcome] : undefined,
    filter.actor
      ? or(ilike(approvals.actor, containing(filter.actor)), ilike(actorEmail, containing(filter.actor)))
      : undefined,
    filter.tool ? eq(approvals.toolName, filter.tool) : undefined,
    filter.run
      ? or(ilike(runs.name, containing(filter.run)), idStartsWith(approvals.runId, filter.run))
      : undefined,
  );
}
