/** The store's approvals seam over drizzle: the append-only audit written with what it announces. */
import { and, asc, eq, lt, type SQL, sql } from "drizzle-orm";
import {
  type ApprovalAnnouncement,
  type ApprovalStore,
  type DecisionRecord,
  LostClaimError,
  RUN_EVENT_VERSIONS,
  type RunEvent,
} from "@/lib/runtime";
import type { Db } from "../client";
import { runs } from "../schema";
import { toStorableText } from "../storable-columns";
import {
  type AppendOptions,
  appendEvent,
  appendEvents,
  jsonParameter,
  RUN_EVENTS_CHANNEL,
  rowsOf,
} from "./append-event";
import { auditInSameWrite, readApprovals } from "./approval-audit";
import { callOf, leaseFromNow } from "./run-rows";

export function createApprovalRepository(db: Db): ApprovalStore {
  /**
   * One statement: a decision's audit rows, its announcement, an approved
   * barrier's start and a grant, all or nothing, fenced by the claim (or by
   * the run being unchanged since it was read, when `claim` claims it in the
   * same statement). The barrier's call runs only once this has committed.
   */
  async function writeDecision(
    runId: string,
    { records, event, startBarrier }: DecisionRecord<ApprovalAnnouncement>,
    options: { fence: AppendOptions["fence"]; first?: RunEvent[]; claim?: SQL },
  ): Promise<void> {
    const granted = event.type === "approval_decided" ? event.payload : null;
    const allowTool = granted?.allowTool ?? null;
    const grant = granted && {
      decisionId: granted.decisionId,
      actor: toStorableText(granted.actor),
      actorId: granted.actorId,
    };
    const stepIndex = startBarrier?.resumed.payload.stepIndex ?? 0;
    const sets = [
      ...(options.claim ? [options.claim] : []),
      ...(allowTool === null
        ? []
        : [
            sql`allowed_tools = allowed_tools || jsonb_build_object(${toStorableText(allowTool)}::text, ${jsonParameter(grant)}::jsonb)`,
          ]),
    ];
    await appendEvents(
      db,
      runId,
      [
        ...(options.first ?? []),
        event,
        ...(startBarrier
          ? [
              startBarrier.resumed,
              { type: "call_started" as const, payload: { stepIndex, batchIndex: startBarrier.batchIndex } },
            ]
          : []),
      ],
      {
        fence: options.fence,
        alsoSet: sets.length > 0 ? sql.join(sets, sql`, `) : undefined,
        alsoDo: [
          auditInSameWrite(records, "decision"),
          ...(startBarrier
            ? [
                sql`stamped as (
                  update tool_calls set status = 'running', start_seq = inserted.seq from inserted
                  where inserted.type = 'call_started' and ${callOf(runId, stepIndex)})`,
              ]
            : []),
        ],
      },
    );
  }

  return {
    listApprovals: (runId) => readApprovals(db, runId),

    async recordApproval(records, announce) {
      if (records.length === 0) return false;
      try {
        const { claimToken, event, startBarrier } = announce;
        await writeDecision(records[0]?.runId ?? "", { records, event, startBarrier }, { fence: claimToken });
        return true;
      } catch (error) {
        if (LostClaimError.isInstance(error)) throw error;
        return false;
      }
    },

    async claimAndRecordDecision(runId, claimToken, leaseMs, unchangedSince, decision) {
      try {
        await writeDecision(runId, decision, {
          fence: { claimUnchangedSince: unchangedSince },
          // The claim's own announcement comes first, as `claimWaitingRun` writes it.
          first: [
            {
              type: "run_claimed",
              payload: {
                stepIndex: decision.event.payload.stepIndex,
                turnDigest: decision.event.payload.turnDigest,
                purpose: "decision",
              },
            },
          ],
          claim: sql`status = 'RUNNING', claim_token = ${claimToken}, lease_expires_at = ${leaseFromNow(leaseMs)}`,
        });
        return true;
      } catch {
        // Changed since read, taken, or not audited: nothing was written; the long way says which.
        return false;
      }
    },

    async recordPartialApproval(runId, unchangedSince, { records, event, state, awaiting }) {
      if (records.length === 0) return false;
      try {
        // Fenced like a decision's one-write claim (waiting, unchanged since read, no claim being
        // taken), but it claims nothing: the run goes on waiting, its state holding the count.
        await appendEvents(db, runId, [event, ...(awaiting ? [awaiting] : [])], {
          fence: { claimUnchangedSince: unchangedSince },
          onlyIf: sql`approval_expires_at is null or approval_expires_at > now()`,
          alsoSet: sql`state = ${jsonParameter(state)}::jsonb`,
          alsoDo: [auditInSameWrite(records, "decision")],
        });
        return true;
      } catch {
        // Changed since read, claimed, due, or not audited: nothing was written; the caller reads again.
        return false;
      }
    },

    async revokeToolAllowance(runId, toolName, by) {
      return db.transaction(async (tx) => {
        // Locked, so a decision granting the tool at this moment is either before or after this.
        const [row] = rowsOf<{ granted: boolean }>(
          await tx.execute(
            sql`select allowed_tools ? ${toolName} as granted from runs where id = ${runId}::uuid for update`,
          ),
        );
        if (!row?.granted) return false;
        await appendEvent(
          tx as unknown as Db,
          runId,
          { type: "tool_allowance_revoked", payload: { toolName, actor: by.actor, actorId: by.actorId } },
          { fence: null, alsoSet: sql`allowed_tools = allowed_tools - ${toolName}::text` },
        );
        return true;
      });
    },

    async announceExpiringWaits(limit) {
      // One statement: take the due warnings (skipping rows another instance holds), clear them,
      // and announce each at the run's next seq.
      const result = await db.execute(sql`
        with due as (
          select id from runs
          where status = 'WAITING_FOR_APPROVAL' and approval_warn_at <= now()
          order by approval_warn_at limit ${limit} for update skip locked
        ), bumped as (
          update runs set approval_warn_at = null, last_seq = last_seq + 1, updated_at = now()
          from due where runs.id = due.id
          returning runs.id, runs.last_seq, runs.state, runs.approval_expires_at
        ), inserted as (
          insert into run_events (run_id, seq, type, version, payload)
          select id, last_seq, 'approval_expiring', ${RUN_EVENT_VERSIONS.approval_expiring},
                 jsonb_build_object('stepIndex', state->'stepIndex', 'turnDigest', state->'pending'->'turnDigest',
                   'expiresAt', to_char(approval_expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
          from bumped
          returning run_id, seq
        )
        select count(pg_notify(${RUN_EVENTS_CHANNEL}, run_id::text || ':' || seq::text)) as announced from inserted`);
      const [row] = rowsOf<{ announced: number | string }>(result);
      return Number(row?.announced ?? 0);
    },

    async listExpiredWaits(limit) {
      const rows = await db
        .select({ id: runs.id })
        .from(runs)
        .where(and(eq(runs.status, "WAITING_FOR_APPROVAL"), lt(runs.approvalExpiresAt, sql`now()`)))
        .orderBy(asc(runs.approvalExpiresAt))
        .limit(limit);
      return rows.map((row) => row.id);
    },
  };
}
