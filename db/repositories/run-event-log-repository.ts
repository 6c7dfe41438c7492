/** The store's run and event log seam over drizzle: every change committed with the event that announces it. */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import {
  awaitingApprovalEvent,
  callsInvalidatedEvent,
  decodeToolAllowances,
  INTERRUPTED_BY_FAILURE,
  LostClaimError,
  type NewRun,
  type NewStep,
  type RunError,
  type RunEvent,
  type RunEventLog,
  type StepMetrics,
  type SuspendedState,
  stepPlannedEvent,
  UnsettledCallsError,
} from "@/lib/runtime";
import type { Db } from "../client";
import { runs, toolCalls, workspaceFiles } from "../schema";
import {
  appendEvent,
  appendEvents,
  jsonParameter,
  readEvents,
  readLatestEvent,
  rowsOf,
} from "./append-event";
import { auditInSameWrite } from "./approval-audit";
import { callOf, leaseFromNow, RUN_CANCELS_CHANNEL, runWithLease, toRunRecord } from "./run-rows";

export function createRunEventLogRepository(db: Db): RunEventLog {
  // Built once: every decision starts by reading its run.
  const runById = db
    .select(runWithLease)
    .from(runs)
    .where(eq(runs.id, sql.placeholder("runId")))
    .prepare("run_by_id");
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
          {
            type: "run_started",
            payload: {
              name: run.name,
              limits: run.limits,
              startedBy: run.startedBy,
              mcpServers: run.mcpServers ?? [],
              forkedFrom: run.forkedFrom ?? null,
            },
          },
          { fence: run.claimToken },
        );
      });
    },

    async getRun(runId) {
      const [row] = await runById.execute({ runId });
      return row ? toRunRecord(row) : null;
    },

    readEvents: (runId, afterSeq, limit) => readEvents(db, runId, afterSeq, limit),

    readLatestEvent: (runId, types) => readLatestEvent(db, runId, types),

    appendEvent: (runId, claimToken, event) => appendEvent(db, runId, event, { fence: claimToken }),

    async recordStep(runId, claimToken, step: NewStep, modelCalls) {
      // One statement: the fenced seq (and the completion count), the event, the step and its calls.
      const calls = step.calls.map(({ call, status, error }) => ({
        batch_index: call.batchIndex,
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
        status,
        error,
      }));
      await appendEvent(db, runId, stepPlannedEvent(step, modelCalls), {
        fence: claimToken,
        alsoSet: sql`model_calls = ${modelCalls}`,
        alsoDo: [
          // The text is in the step_planned event, where every reader finds it; steps.text stays
          // for rows written before, so a long text is not stored twice more.
          sql`step_row as (
            insert into steps (run_id, index, plan, metrics)
            select ${runId}::uuid, ${step.index}, ${jsonParameter(step.plan)}::jsonb, ${jsonParameter(step.metrics)}::jsonb
            from inserted)`,
          sql`call_rows as (
            insert into tool_calls (run_id, step_index, batch_index, call_id, name, raw_arguments, status, error)
            select ${runId}::uuid, ${step.index}, c.batch_index, c.call_id, c.name, c.arguments, c.status, c.error
            from inserted, jsonb_to_recordset(${jsonParameter(calls)}::jsonb)
              as c(batch_index int, call_id text, name text, arguments text, status text, error jsonb))`,
        ],
      });
    },

    // One statement each, however many calls: the events, and each call stamped with its seq.

    async startCalls(runId, claimToken, stepIndex, batchIndexes, options) {
      const events: RunEvent[] = [
        ...(options.first ?? []),
        ...(options.wave
          ? [{ type: "wave_started" as const, payload: { stepIndex, batchIndexes: [...batchIndexes] } }]
          : []),
        ...batchIndexes.map((batchIndex) => ({
          type: "call_started" as const,
          payload: { stepIndex, batchIndex },
        })),
      ];
      const approvalRows = options.approvals ?? [];
      const appended = await appendEvents(db, runId, events, {
        fence: claimToken,
        unlessCancelPending: options.wave,
        alsoDo: [
          ...(approvalRows.length > 0 ? [auditInSameWrite(approvalRows, "call_started")] : []),
          sql`stamped as (
            update tool_calls set status = 'running', start_seq = inserted.seq from inserted
            where inserted.type = 'call_started' and ${callOf(runId, stepIndex)})`,
        ],
      });
      if (appended.seqs === null) return { cancelPending: appended.cancelPending };
      // The calls' seqs are the last ones: after any leading events and the wave's own.
      return { seqs: appended.seqs.slice(appended.seqs.length - batchIndexes.length) };
    },

    async settleCalls(runId, claimToken, stepIndex, settled) {
      const { seqs } = await appendEvents(
        db,
        runId,
        settled.map(({ batchIndex, outcome }) => ({
          type: "call_settled" as const,
          payload: { stepIndex, batchIndex, ...outcome },
        })),
        {
          fence: claimToken,
          alsoDo: [
            sql`stamped as (
              update tool_calls
              set status = inserted.payload->>'status', result = nullif(inserted.payload->'result', 'null'::jsonb),
                  error = nullif(inserted.payload->'error', 'null'::jsonb), settle_seq = inserted.seq
              from inserted where ${callOf(runId, stepIndex)})`,
          ],
        },
      );
      return seqs ?? [];
    },

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

    async finishStep(runId, claimToken, stepIndex, metrics: StepMetrics, options) {
      const runCancelled = options?.runCancelled === true ? { runCancelled: true } : {};
      const { cancelPending, allowedTools } = await appendEvents(
        db,
        runId,
        [{ type: "step_finished", payload: { stepIndex, metrics, ...runCancelled } }],
        {
          fence: claimToken,
          alsoDo: [
            sql`finished as (
              update steps set metrics = ${jsonParameter(metrics)}::jsonb, updated_at = now() from inserted
              where steps.run_id = ${runId}::uuid and steps.index = ${stepIndex})`,
          ],
        },
      );
      return { cancelPending, allowedTools: decodeToolAllowances(allowedTools) };
    },

    async suspendRun(runId, claimToken, state: SuspendedState) {
      const expiresAt = state.pending.expiresAt ?? null;
      // The fenced UPDATE that takes the seq also hands the run to the waiting state.
      await appendEvent(db, runId, awaitingApprovalEvent(state), {
        fence: claimToken,
        alsoSet: sql`status = 'WAITING_FOR_APPROVAL', state = ${jsonParameter(state)}::jsonb,
          waiting_since = now(), claim_token = null, lease_expires_at = null,
          approval_expires_at = ${expiresAt}::timestamptz,
          approval_warn_at = ${expiresAt}::timestamptz - (${expiresAt}::timestamptz - now()) * 0.2`,
      });
    },

    async finishRun(runId, claimToken, status, error: RunError | null) {
      try {
        await appendEvent(
          db,
          runId,
          { type: "run_finished", payload: { status, error } },
          {
            fence: claimToken,
            // Checked in the statement that ends the run: no run ends past a call with no stored outcome.
            onlyIf: sql`not exists (select 1 from tool_calls
              where tool_calls.run_id = ${runId}::uuid and tool_calls.status = 'running')`,
            alsoSet: sql`status = ${status}, error = ${jsonParameter(error)}::jsonb, state = null, finished_at = now(),
            claim_token = null, lease_expires_at = null, cancel_requested = null`,
          },
        );
      } catch (refusal) {
        if (!LostClaimError.isInstance(refusal)) throw refusal;
        const unsettled = rowsOf<{ step_index: number; batch_index: number }>(
          await db.execute(sql`
            select step_index, batch_index from tool_calls join runs on runs.id = tool_calls.run_id
            where tool_calls.run_id = ${runId}::uuid and tool_calls.status = 'running'
              and runs.claim_token = ${claimToken} and runs.status = 'RUNNING'
            order by step_index, batch_index`),
        );
        if (unsettled.length === 0) throw refusal;
        throw new UnsettledCallsError(
          runId,
          unsettled.map((row) => `${row.step_index}:${row.batch_index}`),
        );
      }
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
          // A call it started and never settled is settled `interrupted` in the same write.
          const unsettled = await tx
            .select({ stepIndex: toolCalls.stepIndex, batchIndex: toolCalls.batchIndex })
            .from(toolCalls)
            .where(and(eq(toolCalls.runId, runId), eq(toolCalls.status, "running")))
            .orderBy(asc(toolCalls.stepIndex), asc(toolCalls.batchIndex));
          const outcome = { status: "error" as const, result: null, error: INTERRUPTED_BY_FAILURE };
          await appendEvents(
            tx,
            runId,
            [
              ...unsettled.map(({ stepIndex, batchIndex }) => ({
                type: "call_settled" as const,
                payload: { stepIndex, batchIndex, ...outcome },
              })),
              { type: "run_finished" as const, payload: { status: "FAILED" as const, error } },
            ],
            {
              fence: null,
              alsoDo: [
                sql`stamped as (
                  update tool_calls set status = 'error', error = inserted.payload->'error', settle_seq = inserted.seq
                  from inserted where inserted.type = 'call_settled'
                    and tool_calls.run_id = ${runId}::uuid
                    and tool_calls.step_index = (inserted.payload->>'stepIndex')::int
                    and tool_calls.batch_index = (inserted.payload->>'batchIndex')::int)`,
              ],
            },
          );
          return true;
        });
      } catch {
        return false;
      }
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
  };
}
