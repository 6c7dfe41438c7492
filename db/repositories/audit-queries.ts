import { and, desc, eq, ilike, lt, or, type SQL, sql } from "drizzle-orm";
import type { AuditFilter, AuditOutcome } from "@/lib/wire/list-filters";
import type { Db } from "../client";
import { accountEvents, approvals, runChanges, runs, user } from "../schema";
import { NAME_HEAD_LENGTH } from "./run-list-queries";
import { containing, idStartsWith } from "./text-match";

/**
 * The decider's e-mail: their account's, or, once they were removed, the one
 * the accounts audit recorded at removal, so history still says who it was.
 */
const actorEmail = sql<
  string | null
>`coalesce(${user.email}, (select ${accountEvents.subjectEmail} from ${accountEvents} where ${accountEvents.subjectId} = ${approvals.actorId} and ${accountEvents.kind} = 'user_removed' order by ${accountEvents.id} desc limit 1))`;

/**
 * The run's name: its row's, or, once the run was deleted, the one its
 * deletion recorded (run_changes), so the audit still says which run it was.
 */
const runName = sql<string>`coalesce(${runs.name}, (select ${runChanges.runName} from ${runChanges} where ${runChanges.runId} = ${approvals.runId} and ${runChanges.kind} = 'deleted' order by ${runChanges.id} desc limit 1), '')`;

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
      runName,
      /** The run was deleted: its page is gone, its decisions stay here (docs/housekeeping.md). */
      runDeleted: sql<boolean>`${runs.id} is null`,
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
      /** `link` or `link_alone` when the decision came through a decision link; null otherwise. */
      via: sql<"link" | "link_alone" | null>`${approvals.via}`,
      viaChannel: approvals.viaChannel,
    })
    .from(approvals)
    .leftJoin(runs, eq(runs.id, approvals.runId))
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
  if (kind === "partial") return "counted";
  return approve ? "approved" : "denied";
}

function auditRowsMatching(filter: AuditFilter): SQL | undefined {
  const outcome: Record<AuditOutcome, SQL | undefined> = {
    approved: and(eq(approvals.kind, "decision"), eq(approvals.approve, true)),
    denied: and(eq(approvals.kind, "decision"), eq(approvals.approve, false)),
    expired: eq(approvals.kind, "expiry"),
    automatic: eq(approvals.kind, "automatic"),
    voided: eq(approvals.kind, "voided"),
    counted: eq(approvals.kind, "partial"),
  };
  return and(
    filter.outcome ? outcome[filter.outcome] : undefined,
    filter.actor
      ? or(ilike(approvals.actor, containing(filter.actor)), ilike(actorEmail, containing(filter.actor)))
      : undefined,
    filter.tool ? eq(approvals.toolName, filter.tool) : undefined,
    filter.run
      ? or(ilike(runName, containing(filter.run)), idStartsWith(approvals.runId, filter.run))
      : undefined,
  );
}
