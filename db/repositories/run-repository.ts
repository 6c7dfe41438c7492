import { and, asc, eq, getTableColumns, inArray, isNull, lt, or, sql } from "drizzle-orm";
import {
  type ApprovalRecord,
  awaitingApprovalEvent,
  type CallOutcome,
  callsInvalidatedEvent,
  decodeLimits,
  LostClaimError,
  type NewRun,
  type NewStep,
  type RunError,
  type RunRecord,
  type RunStore,
  type StepMetrics,
  type SuspendedState,
  stepPlannedEvent,
} from "@/lib/runtime";
import type { Db } from "../client";
import { approvals, runs, steps, toolCalls, workspaceFiles } from "../schema";
import { appendEvent, jsonParameter, readEvents, rowsOf } from "./append-event";

/** The run's columns, and whether its lease has run out by the database's clock. */
const runWithLease = {
  ...getTableColumns(runs),
  leaseExpired: sql<boolean>`(${runs.status} = 'RUNNING' and coalesce(${runs.leaseExpiresAt} < now(), true))`,
};

function toRunRecord(row: typeof runs.$inferSelect & { leaseExpired: boolean }): RunRecord {
  return {
    id: row.id,
    status: row.status,
    scenario: row.scenario,
    limits: decodeLimits(row.id, row.limits),
    modelCalls: row.modelCalls,
    state: row.state,
    startedById: row.startedById,
    leaseExpired: row.leaseExpired,
  };
}

/** A RUNNING run nobody holds any more: its lease ran out (or, from before leases, was never set). */
const isExpired = and(
  eq(runs.status, "RUNNING"),
  or(isNull(runs.leaseExpiresAt), lt(runs.leaseExpiresAt, sql`now()`)),
);

/** The NOTIFY channel that announces a cancellation asked of a running run, as its id. */
export const RUN_CANCELS_CHANNEL = "run_cancels";

/** Tool-call rows per INSERT: 8 parameters each, well under Postgres's 65,535. */
const CALL_ROWS_PER_INSERT = 1000;

/** `now() + leaseMs` in the database's clock, which every instance shares. */
const leaseFromNow = (leaseMs: number) => sql`now() + ${`${leaseMs} milliseconds`}::interval`;

const callWhere = (runId: string, stepIndex: number, batchIndex: number) =>
  sql`tool_calls.run_id = ${runId}::uuid and tool_calls.step_index = ${stepIndex} and tool_calls.batch_index = ${batchIndex}`;

/** The runtime's `RunStore` over drizzle, for PGlite and Postgres alike. */
export function createRunRepository(db: Db): RunStore {
  return {
    async createRun(run: NewRun) {
      await db.transaction(async (tx) => {
        await tx.insert(runs).values({
          id: run.id,
          name: run.name,
          status: "RUNNING",
          scenario: run.scenario,
          limits: run.limits,
          claimToken: run.claimToken,
          leaseExpiresAt: leaseFromNow(run.leaseMs),
          startedById: run.startedBy?.id ?? null,
          startedByName: run.startedBy?.name ?? null,
        });
        if (run.files.length > 0) {
          await tx.insert(workspaceFiles).values(run.files.map((file) => ({ runId: run.id, ...file })));
        }
        await appendEvent(
          tx,
          run.id,
          { type: "run_started", payload: { name: run.name, limits: run.limits, startedBy: run.startedBy } },
          { fence: run.claimToken },
        );
      });
    },

    async getRun(runId) {
      const [row] = await db.select(runWithLease).from(runs).where(eq(runs.id, runId));
      return row ? toRunRecord(row) : null;
    },

    readEvents: (runId, afterSeq) => readEvents(db, runId, afterSeq),

    async listApprovals(runId) {
      const rows = await db
        .select()
        .from(approvals)
        .where(eq(approvals.runId, runId))
        .orderBy(asc(approvals.id));
      return rows.map((row) => ({
        turnDigest: row.turnDigest,
        approve: row.approve,
        actor: row.actor,
        actorId: row.actorId,
        reason: row.reason,
        decidedAt: row.decidedAt.toISOString(),
      }));
    },

    appendEvent: (runId, claimToken, event) => appendEvent(db, runId, event, { fence: claimToken }),

    async recordStep(runId, claimToken, step: NewStep, modelCalls) {
      await db.transaction(async (tx) => {
        // The fenced append comes first: a worker that lost its claim writes nothing, not even the step.
        await appendEvent(tx, runId, stepPlannedEvent(step, modelCalls), {
          fence: claimToken,
          alsoSet: sql`model_calls = ${modelCalls}`,
        });
        await tx
          .insert(steps)
          .values({ runId, index: step.index, text: step.text, plan: step.plan, metrics: step.metrics });
        // One INSERT may bind at most 65,535 parameters: a batch of thousands of calls goes in chunks.
        for (let start = 0; start < step.calls.length; start += CALL_ROWS_PER_INSERT) {
          await tx.insert(toolCalls).values(
            step.calls.slice(start, start + CALL_ROWS_PER_INSERT).map(({ call, status, error }) => ({
              runId,
              stepIndex: step.index,
              batchIndex: call.batchIndex,
              callId: call.id,
              name: call.name,
              arguments: call.arguments,
              status,
              error,
            })),
          );
        }
      });
    },

    // One statement each: the event, and the call stamped with its seq.
    startCall: (runId, claimToken, stepIndex, batchIndex) =>
      appendEvent(
        db,
        runId,
        { type: "call_started", payload: { stepIndex, batchIndex } },
        {
          fence: claimToken,
          alsoDo: [
            sql`stamped as (
              update tool_calls set status = 'running', start_seq = inserted.seq from inserted
              where ${callWhere(runId, stepIndex, batchIndex)})`,
          ],
        },
      ),

    settleCall: (runId, claimToken, stepIndex, batchIndex, outcome: CallOutcome) =>
      appendEvent(
        db,
        runId,
        { type: "call_settled", payload: { stepIndex, batchIndex, ...outcome } },
        {
          fence: claimToken,
          alsoDo: [
            sql`stamped as (
              update tool_calls
              set status = ${outcome.status}, result = ${jsonParameter(outcome.result ?? null)}::jsonb,
                  error = ${jsonParameter(outcome.error)}::jsonb, settle_seq = inserted.seq
              from inserted
              where ${callWhere(runId, stepIndex, batchIndex)})`,
          ],
        },
      ),

    async invalidateCalls(runId, claimToken, stepIndex, outcomes, reason) {
      const settled = outcomes.map(({ batchIndex, outcome }) => ({
        batch_index: batchIndex,
        status: outcome.status,
        error: outcome.error,
      }));
      await appendEvent(db, runId, callsInvalidatedEvent(stepIndex, outcomes, reason), {
        fence: claimToken,
        alsoDo: [
          sql`settled as (
            update tool_calls set status = x.status, result = null, error = x.error
            from inserted, jsonb_to_recordset(${jsonParameter(settled)}::jsonb) as x(batch_index int, status text, error jsonb)
            where tool_calls.run_id = ${runId}::uuid and tool_calls.step_index = ${stepIndex}
              and tool_calls.batch_index = x.batch_index)`,
        ],
      });
    },

    async finishStep(runId, claimToken, stepIndex, metrics: StepMetrics) {
      await appendEvent(
        db,
        runId,
        { type: "step_finished", payload: { stepIndex, metrics } },
        {
          fence: claimToken,
          alsoDo: [
            sql`finished as (
              update steps set metrics = ${jsonParameter(metrics)}::jsonb, updated_at = now() from inserted
              where steps.run_id = ${runId}::uuid and steps.index = ${stepIndex})`,
          ],
        },
      );
    },

    async suspendRun(runId, claimToken, state: SuspendedState) {
      // The fenced UPDATE that takes the seq also hands the run to the waiting state.
      await appendEvent(db, runId, awaitingApprovalEvent(state), {
        fence: claimToken,
        alsoSet: sql`status = 'WAITING_FOR_APPROVAL', state = ${jsonParameter(state)}::jsonb,
          waiting_since = now(), claim_token = null, lease_expires_at = null`,
      });
    },

    async finishRun(runId, claimToken, status, error: RunError | null) {
      await appendEvent(
        db,
        runId,
        { type: "run_finished", payload: { status, error } },
        {
          fence: claimToken,
          alsoSet: sql`status = ${status}, error = ${jsonParameter(error)}::jsonb, state = null, finished_at = now(),
          claim_token = null, lease_expires_at = null, cancel_requested = null`,
        },
      );
    },

    async forceFail(runId, error) {
      try {
        return await db.transaction(async (tx) => {
          // The state is kept: an operator inspects what could not be decoded.
          const [row] = await tx
            .update(runs)
            .set({ status: "FAILED", error, finishedAt: new Date(), claimToken: null, leaseExpiresAt: null })
            .where(and(eq(runs.id, runId), inArray(runs.status, ["RUNNING", "WAITING_FOR_APPROVAL"])))
            .returning({ id: runs.id });
          if (!row) return false;
          await appendEvent(
            tx,
            runId,
            { type: "run_finished", payload: { status: "FAILED", error } },
            { fence: null },
          );
          return true;
        });
      } catch {
        return false;
      }
    },

    async takeCancelRequest(runId, claimToken) {
      // One statement, run at every segment boundary: reads the request under the row lock and
      // clears it only when there is one, so a run nobody cancels writes nothing here.
      const result = await db.execute(sql`
        with current as (
          select cancel_requested, claim_token, status from runs where id = ${runId}::uuid for update
        ), cleared as (
          update runs set cancel_requested = null
          where id = ${runId}::uuid and claim_token = ${claimToken} and status = 'RUNNING'
            and cancel_requested is not null
          returning 1
        )
        select cancel_requested, claim_token, status from current`);
      const [row] = rowsOf<{
        cancel_requested: "turn" | "run" | null;
        claim_token: string | null;
        status: string;
      }>(result);
      if (row?.claim_token !== claimToken || row.status !== "RUNNING") throw new LostClaimError(runId);
      return row.cancel_requested;
    },

    requestCancel: (runId, scope) =>
      db.transaction(async (tx) => {
        // A pending "run" request is never weakened to "turn".
        const [row] = await tx
          .update(runs)
          .set({
            cancelRequested: sql`case when ${runs.cancelRequested} = 'run' then 'run' else ${scope} end`,
          })
          .where(and(eq(runs.id, runId), eq(runs.status, "RUNNING")))
          .returning({ id: runs.id });
        // Whichever instance drives the run hears this and aborts what is in flight (a model call, a tool).
        if (row) await tx.execute(sql`select pg_notify(${RUN_CANCELS_CHANNEL}, ${runId})`);
        return Boolean(row);
      }),

    async claimWaitingRun(runId, claimToken, leaseMs) {
      const [row] = await db
        .update(runs)
        .set({
          status: "RUNNING",
          claimToken,
          leaseExpiresAt: leaseFromNow(leaseMs),
          // waitingSince stays: if the decision is refused and the run released, it has waited since then.
          updatedAt: new Date(),
        })
        .where(
          and(
            eq(runs.id, runId),
            eq(runs.status, "WAITING_FOR_APPROVAL"),
            // A claim another decision is taking right now is lost at once, without queuing behind it.
            inArray(
              runs.id,
              db
                .select({ id: runs.id })
                .from(runs)
                .where(eq(runs.id, runId))
                .for("update", { skipLocked: true }),
            ),
          ),
        )
        .returning();
      return row ? toRunRecord({ ...row, leaseExpired: false }) : null;
    },

    async releaseRun(runId, claimToken, state, event) {
      try {
        await appendEvent(db, runId, event, {
          fence: claimToken,
          // waitingSince stays: a refused decision does not restart the wait.
          alsoSet: sql`status = 'WAITING_FOR_APPROVAL', state = ${jsonParameter(state)}::jsonb,
            claim_token = null, lease_expires_at = null`,
        });
        return true;
      } catch {
        return false;
      }
    },

    async renewLease(runId, claimToken, leaseMs) {
      const rows = await db
        .update(runs)
        .set({ leaseExpiresAt: leaseFromNow(leaseMs) })
        .where(and(eq(runs.id, runId), eq(runs.claimToken, claimToken), eq(runs.status, "RUNNING")))
        .returning({ id: runs.id });
      return rows.length > 0;
    },

    async claimExpiredRuns({ leaseMs, limit, runId }) {
      const expired = db
        .select({ id: runs.id })
        .from(runs)
        .where(runId === undefined ? isExpired : and(isExpired, eq(runs.id, runId)))
        .orderBy(asc(runs.leaseExpiresAt))
        .limit(limit)
        .for("update", { skipLocked: true });
      const rows = await db
        .update(runs)
        .set({
          claimToken: sql`gen_random_uuid()::text`,
          leaseExpiresAt: leaseFromNow(leaseMs),
          updatedAt: new Date(),
        })
        .where(and(inArray(runs.id, expired), isExpired))
        .returning();
      return rows.map((row) => ({
        run: toRunRecord({ ...row, leaseExpired: false }),
        claimToken: row.claimToken ?? "",
      }));
    },

    async recordApproval(record: ApprovalRecord) {
      try {
        await db.insert(approvals).values(record);
        return true;
      } catch {
        return false;
      }
    },
  };
}
