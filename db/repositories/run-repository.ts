import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import {
  type ApprovalRecord,
  type CallOutcome,
  type Limits,
  LostClaimError,
  type NewStep,
  type RunError,
  type RunRecord,
  type RunStatus,
  type RunStore,
  type StepMetrics,
  type SuspendedState,
} from "@/lib/runtime";
import type { Db } from "../client";
import { approvals, runs, steps, toolCalls } from "../schema";
import { appendEvent } from "./append-event";

/** Lets tests and demos make the next N stores of a kind fail (SPEC §5 fault injection). */
export interface StoreFaults {
  /** True when the next approval record must fail (and consumes one armed failure). */
  takeApprovalFault(): boolean;
  /** True when the next step record (a call's outcome) must fail. */
  takeStepFault(): boolean;
}

function toRunRecord(row: typeof runs.$inferSelect): RunRecord {
  return {
    id: row.id,
    status: row.status,
    scenario: row.scenario,
    limits: row.limits as Limits,
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
export function createRunRepository(db: Db, faults?: StoreFaults): RunStore {
  return {
    async getRun(runId) {
      const [row] = await db.select().from(runs).where(eq(runs.id, runId));
      return row ? toRunRecord(row) : null;
    },

    appendEvent: (runId, type, payload) => db.transaction((tx) => appendEvent(tx, runId, type, payload)),

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
              rawArguments: call.rawArguments,
              status,
              error,
            })),
          );
        }
        await tx.update(runs).set({ modelCalls }).where(eq(runs.id, runId));
        await appendEvent(tx, runId, "step_planned", {
          stepIndex: step.index,
          text: step.text,
          plan: step.plan,
          metrics: step.metrics,
          calls: step.calls.map(({ call, status, error }) => ({
            batchIndex: call.batchIndex,
            id: call.id,
            name: call.name,
            arguments: call.rawArguments,
            resourceClass: call.resourceClass,
            isGated: call.isGated,
            status,
            error,
          })),
        });
      });
    },

    startCall: (runId, stepIndex, batchIndex) =>
      db.transaction(async (tx) => {
        const seq = await appendEvent(tx, runId, "call_started", { stepIndex, batchIndex });
        await tx
          .update(toolCalls)
          .set({ status: "running", startSeq: seq })
          .where(callKey(runId, stepIndex, batchIndex));
        return seq;
      }),

    settleCall: (runId, stepIndex, batchIndex, outcome: CallOutcome) =>
      db.transaction(async (tx) => {
        if (faults?.takeStepFault()) throw new Error("injected fault: the step record could not be stored");
        const seq = await appendEvent(tx, runId, "call_settled", { stepIndex, batchIndex, ...outcome });
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
        await appendEvent(tx, runId, "calls_invalidated", {
          stepIndex,
          reason,
          calls: outcomes.map(({ batchIndex, outcome }) => ({
            batchIndex,
            status: outcome.status,
            error: outcome.error,
          })),
        });
      });
    },

    async finishStep(runId, stepIndex, metrics: StepMetrics) {
      await db.transaction(async (tx) => {
        await tx
          .update(steps)
          .set({ metrics, updatedAt: new Date() })
          .where(and(eq(steps.runId, runId), eq(steps.index, stepIndex)));
        await appendEvent(tx, runId, "step_finished", { stepIndex, metrics });
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
        await appendEvent(tx, runId, "awaiting_approval", {
          stepIndex: state.stepIndex,
          turnDigest: state.pending.turnDigest,
          calls: state.pending.calls,
        });
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
        await appendEvent(tx, runId, "run_finished", { status, error });
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
          await appendEvent(tx, runId, "run_finished", { status: "FAILED" satisfies RunStatus, error });
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

    async releaseRun(runId, claimToken, state) {
      try {
        const [row] = await db
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
        return Boolean(row);
      } catch {
        return false;
      }
    },

    async recordApproval(record: ApprovalRecord) {
      try {
        if (faults?.takeApprovalFault())
          throw new Error("injected fault: the approvals audit is unavailable");
        await db.insert(approvals).values(record);
        return true;
      } catch {
        return false;
      }
    },
  };
}
