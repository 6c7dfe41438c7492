import { and, asc, eq, inArray, isNotNull, sql } from "drizzle-orm";
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
import { appendEvent, readEvents } from "./append-event";

function toRunRecord(row: typeof runs.$inferSelect): RunRecord {
  return {
    id: row.id,
    status: row.status,
    scenario: row.scenario,
    limits: decodeLimits(row.id, row.limits),
    modelCalls: row.modelCalls,
    state: row.state,
    startedById: row.startedById,
  };
}

/** The NOTIFY channel that announces a cancellation asked of a running run, as its id. */
export const RUN_CANCELS_CHANNEL = "run_cancels";

/** Tool-call rows per INSERT: 8 parameters each, well under Postgres's 65,535. */
const CALL_ROWS_PER_INSERT = 1000;

const callKey = (runId: string, stepIndex: number, batchIndex: number) =>
  and(eq(toolCalls.runId, runId), eq(toolCalls.stepIndex, stepIndex), eq(toolCalls.batchIndex, batchIndex));

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
          leaseExpiresAt: sql`now() + ${`${run.leaseMs} milliseconds`}::interval`,
          startedById: run.startedBy?.id ?? null,
          startedByName: run.startedBy?.name ?? null,
        });
        if (run.files.length > 0) {
          await tx.insert(workspaceFiles).values(run.files.map((file) => ({ runId: run.id, ...file })));
        }
        await appendEvent(tx, run.id, {
          type: "run_started",
          payload: { name: run.name, limits: run.limits, startedBy: run.startedBy },
        });
      });
    },

    async getRun(runId) {
      const [row] = await db.select().from(runs).where(eq(runs.id, runId));
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

    appendEvent: (runId, event) => db.transaction((tx) => appendEvent(tx, runId, event)),

    async recordStep(runId, step: NewStep, modelCalls) {
      await db.transaction(async (tx) => {
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
        await tx.update(runs).set({ modelCalls }).where(eq(runs.id, runId));
        await appendEvent(tx, runId, stepPlannedEvent(step, modelCalls));
      });
    },

    startCall: (runId, stepIndex, batchIndex) =>
      db.transaction(async (tx) => {
        const seq = await appendEvent(tx, runId, {
          type: "call_started",
          payload: { stepIndex, batchIndex },
        });
        await tx
          .update(toolCalls)
          .set({ status: "running", startSeq: seq })
          .where(callKey(runId, stepIndex, batchIndex));
        return seq;
      }),

    settleCall: (runId, stepIndex, batchIndex, outcome: CallOutcome) =>
      db.transaction(async (tx) => {
        const seq = await appendEvent(tx, runId, {
          type: "call_settled",
          payload: { stepIndex, batchIndex, ...outcome },
        });
        await tx
          .update(toolCalls)
          .set({
            status: outcome.status,
            result: outcome.result ?? null,
            error: outcome.error,
            settleSeq: seq,
          })
          .where(callKey(runId, stepIndex, batchIndex));
        return seq;
      }),

    async invalidateCalls(runId, stepIndex, outcomes, reason) {
      await db.transaction(async (tx) => {
        for (const { batchIndex, outcome } of outcomes) {
          await tx
            .update(toolCalls)
            .set({ status: outcome.status, result: null, error: outcome.error })
            .where(callKey(runId, stepIndex, batchIndex));
        }
        await appendEvent(tx, runId, callsInvalidatedEvent(stepIndex, outcomes, reason));
      });
    },

    async finishStep(runId, stepIndex, metrics: StepMetrics) {
      await db.transaction(async (tx) => {
        await tx
          .update(steps)
          .set({ metrics, updatedAt: new Date() })
          .where(and(eq(steps.runId, runId), eq(steps.index, stepIndex)));
        await appendEvent(tx, runId, { type: "step_finished", payload: { stepIndex, metrics } });
      });
    },

    async suspendRun(runId, claimToken, state: SuspendedState) {
      await db.transaction(async (tx) => {
        const [row] = await tx
          .update(runs)
          .set({
            status: "WAITING_FOR_APPROVAL",
            state,
            waitingSince: new Date(),
            claimToken: null,
            leaseExpiresAt: null,
          })
          .where(and(eq(runs.id, runId), eq(runs.claimToken, claimToken), eq(runs.status, "RUNNING")))
          .returning({ id: runs.id });
        if (!row) throw new LostClaimError(runId);
        await appendEvent(tx, runId, awaitingApprovalEvent(state));
      });
    },

    async finishRun(runId, claimToken, status, error: RunError | null) {
      await db.transaction(async (tx) => {
        const [row] = await tx
          .update(runs)
          .set({
            status,
            error,
            state: null,
            finishedAt: new Date(),
            claimToken: null,
            leaseExpiresAt: null,
            cancelRequested: null,
          })
          .where(and(eq(runs.id, runId), eq(runs.claimToken, claimToken), eq(runs.status, "RUNNING")))
          .returning({ id: runs.id });
        if (!row) throw new LostClaimError(runId);
        await appendEvent(tx, runId, { type: "run_finished", payload: { status, error } });
      });
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
          await appendEvent(tx, runId, { type: "run_finished", payload: { status: "FAILED", error } });
          return true;
        });
      } catch {
        return false;
      }
    },

    takeCancelRequest: (runId) =>
      db.transaction(async (tx) => {
        const [row] = await tx
          .select({ cancelRequested: runs.cancelRequested })
          .from(runs)
          .where(and(eq(runs.id, runId), isNotNull(runs.cancelRequested)))
          .for("update");
        if (!row?.cancelRequested) return null;
        await tx.update(runs).set({ cancelRequested: null }).where(eq(runs.id, runId));
        return row.cancelRequested;
      }),

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
          leaseExpiresAt: sql`now() + ${`${leaseMs} milliseconds`}::interval`,
          // waitingSince stays: if the decision is refused and the run released, it has waited since then.
          updatedAt: new Date(),
        })
        .where(and(eq(runs.id, runId), eq(runs.status, "WAITING_FOR_APPROVAL")))
        .returning();
      return row ? toRunRecord(row) : null;
    },

    async releaseRun(runId, claimToken, state, event) {
      try {
        return await db.transaction(async (tx) => {
          const [row] = await tx
            .update(runs)
            .set({
              status: "WAITING_FOR_APPROVAL",
              state,
              claimToken: null,
              leaseExpiresAt: null,
              // waitingSince stays: a refused decision does not restart the wait.
            })
            .where(and(eq(runs.id, runId), eq(runs.claimToken, claimToken), eq(runs.status, "RUNNING")))
            .returning({ id: runs.id });
          if (!row) return false;
          await appendEvent(tx, runId, event);
          return true;
        });
      } catch {
        return false;
      }
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
