import { and, asc, eq, getTableColumns, inArray, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import {
  type ApprovalAnnouncement,
  awaitingApprovalEvent,
  callsInvalidatedEvent,
  type DecisionRecord,
  decodeLimits,
  decodeToolAllowances,
  INTERRUPTED_BY_FAILURE,
  LostClaimError,
  type NewRun,
  type NewStep,
  RUN_EVENT_VERSIONS,
  type RunError,
  type RunEvent,
  type RunRecord,
  type RunStore,
  type StepMetrics,
  type SuspendedState,
  stepPlannedEvent,
  UnsettledCallsError,
} from "@/lib/runtime";
import type { Db } from "../client";
import { runs, toolCalls, workspaceFiles } from "../schema";
import { toStorableText } from "../storable-columns";
import {
  type AppendOptions,
  appendEvent,
  appendEvents,
  jsonParameter,
  RUN_EVENTS_CHANNEL,
  readEvents,
  rowsOf,
} from "./append-event";
import { auditInSameWrite, readApprovals } from "./approval-audit";
import { guardRunStore } from "./guard-run-store";

/** The run's columns, and whether its lease has run out by the database's clock. */
const runWithLease = {
  ...getTableColumns(runs),
  leaseExpired: sql<boolean>`(${runs.status} = 'RUNNING' and coalesce(${runs.leaseExpiresAt} < now(), true))`,
  // The transaction that last wrote the row: any write changes it.
  version: sql<string>`${runs}.xmin::text`,
};

function toRunRecord(row: typeof runs.$inferSelect & { leaseExpired: boolean; version: string }): RunRecord {
  return {
    id: row.id,
    status: row.status,
    scenario: row.scenario,
    limits: decodeLimits(row.id, row.limits),
    modelCalls: row.modelCalls,
    state: row.state,
    startedById: row.startedById,
    leaseExpired: row.leaseExpired,
    allowedTools: decodeToolAllowances(row.allowedTools),
    version: row.version,
  };
}

/** A `jsonb` column of a raw statement: drivers hand it over parsed, or (some) as its text. */
const parseJson = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);

/** A RUNNING run nobody holds any more: its lease ran out (or, from before leases, was never set). */
const isExpired = and(
  eq(runs.status, "RUNNING"),
  or(isNull(runs.leaseExpiresAt), lt(runs.leaseExpiresAt, sql`now()`)),
);

/** The NOTIFY channel that announces a cancellation asked of a running run, as its id. */
export const RUN_CANCELS_CHANNEL = "run_cancels";

/** `now() + leaseMs` in the database's clock, which every instance shares. */
const leaseFromNow = (leaseMs: number) => sql`now() + ${`${leaseMs} milliseconds`}::interval`;

/** The tool call of the step whose `call_started`/`call_settled` is the `inserted` row. */
const callOf = (runId: string, stepIndex: number) =>
  sql`tool_calls.run_id = ${runId}::uuid and tool_calls.step_index = ${stepIndex}
    and tool_calls.batch_index = (inserted.payload->>'batchIndex')::int`;

/**
 * The runtime's `RunStore` over drizzle, for PGlite and Postgres alike, with
 * transient failures tried again or turned into `StoreUnavailableError`
 * (`guardRunStore`).
 */
export function createRunRepository(db: Db): RunStore {
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

  // Built once: every decision starts by reading its run.
  const runById = db
    .select(runWithLease)
    .from(runs)
    .where(eq(runs.id, sql.placeholder("runId")))
    .prepare("run_by_id");

  return guardRunStore({
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

    listApprovals: (runId) => readApprovals(db, runId),

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

    async finishStep(runId, claimToken, stepIndex, metrics: StepMetrics) {
      const { cancelPending, allowedTools } = await appendEvents(
        db,
        runId,
        [{ type: "step_finished", payload: { stepIndex, metrics } }],
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

    async claimWaitingRun(runId, claimToken, leaseMs, purpose) {
      // One statement: the claim (skipping a row another claim holds, so it never queues), and its
      // announcement with the claimed state's step and digest. A state too damaged to say them is
      // claimed unannounced: the claimer fails the run, which is announced.
      const readable = sql`jsonb_typeof(state->'stepIndex') = 'number' and jsonb_typeof(state->'pending'->'turnDigest') = 'string'`;
      const result = await db.execute(sql`
        with claimed as (
          update runs
          set status = 'RUNNING', claim_token = ${claimToken}, lease_expires_at = ${leaseFromNow(leaseMs)},
              updated_at = now(), last_seq = last_seq + (case when ${readable} then 1 else 0 end)
          where id = ${runId}::uuid and status = 'WAITING_FOR_APPROVAL'
            and id in (select id from runs where id = ${runId}::uuid for update skip locked)
          returning id, status, scenario, limits, model_calls, state, started_by_id, last_seq, allowed_tools,
                    xmin::text as version
        ), announced as (
          insert into run_events (run_id, seq, type, version, payload)
          select id, last_seq, 'run_claimed', ${RUN_EVENT_VERSIONS.run_claimed},
                 jsonb_build_object('stepIndex', state->'stepIndex', 'turnDigest', state->'pending'->'turnDigest',
                                    'purpose', ${purpose}::text)
          from claimed where ${readable}
          returning run_id, seq
        )
        select claimed.*,
               (select pg_notify(${RUN_EVENTS_CHANNEL}, run_id::text || ':' || seq::text) from announced) as notified
        from claimed`);
      const [row] = rowsOf<{
        id: string;
        status: RunRecord["status"];
        scenario: unknown;
        limits: unknown;
        model_calls: number;
        state: unknown;
        started_by_id: string | null;
        allowed_tools: unknown;
        version: string;
      }>(result);
      if (!row) return null;
      return {
        id: row.id,
        status: row.status,
        scenario: parseJson(row.scenario),
        limits: decodeLimits(row.id, parseJson(row.limits)),
        modelCalls: Number(row.model_calls),
        state: parseJson(row.state),
        startedById: row.started_by_id,
        leaseExpired: false,
        allowedTools: decodeToolAllowances(parseJson(row.allowed_tools)),
        version: row.version,
      };
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
        .returning({ ...getTableColumns(runs), version: runWithLease.version });
      return rows.map((row) => ({
        run: toRunRecord({ ...row, leaseExpired: false }),
        claimToken: row.claimToken ?? "",
      }));
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
  });
}
