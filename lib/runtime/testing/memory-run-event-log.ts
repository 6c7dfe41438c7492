/** The in-memory store's run and event log seam: each write appends its events, which the fold reads back. */
import {
  awaitingApprovalEvent,
  callsInvalidatedEvent,
  decodeRunEvent,
  type StoredRunEvent,
  stepPlannedEvent,
} from "../events/run-events";
import { UnsettledCallsError } from "../run/run-errors";
import { INTERRUPTED_BY_FAILURE } from "../run/run-records";
import type { RunEventLog } from "../run/run-store";
import type { RunError } from "../run/run-types";
import { copy, type MemoryRunLog } from "./memory-run-log";

export function createMemoryRunEventLog(log: MemoryRunLog): RunEventLog {
  const { runs, append, held, call, now } = log;
  return {
    async createRun(newRun) {
      if (runs.has(newRun.id)) throw new Error(`run ${newRun.id} already exists`);
      const run = log.newRun({
        id: newRun.id,
        name: newRun.name,
        scenario: copy(newRun.scenario),
        state: null,
        claimToken: newRun.claimToken,
        leaseExpiresAt: now() + newRun.leaseMs,
        cancelRequested: null,
        waitingSince: null,
        expiresAt: null,
        warnAt: null,
        approvals: [],
        files: new Map(newRun.files.map((file) => [file.path, file.content])),
      });
      append(run, {
        type: "run_started",
        payload: {
          name: newRun.name,
          limits: newRun.limits,
          startedBy: newRun.startedBy,
          mcpServers: newRun.mcpServers ?? [],
          forkedFrom: newRun.forkedFrom ?? null,
        },
      });
      runs.set(newRun.id, run);
    },

    async getRun(runId) {
      const run = runs.get(runId);
      return run ? log.recordOf(run) : null;
    },

    async readEvents(runId, afterSeq, limit) {
      const run = runs.get(runId);
      if (!run) return [];
      return run.events
        .filter((event) => event.seq > afterSeq)
        .slice(0, limit)
        .map((event): StoredRunEvent => decodeRunEvent(runId, copy(event)));
    },

    async readLatestEvent(runId, types) {
      const latest = runs.get(runId)?.events.findLast((event) => types.includes(event.type));
      return latest ? decodeRunEvent(runId, copy(latest)) : null;
    },

    async appendEvent(runId, claimToken, event) {
      return append(held(runId, claimToken), event);
    },

    async recordStep(runId, claimToken, step, modelCalls) {
      const run = held(runId, claimToken);
      if (run.view.steps.some((stored) => stored.index === step.index)) {
        throw new Error(`step ${step.index} of run ${runId} is already stored`);
      }
      append(run, stepPlannedEvent(step, modelCalls));
    },

    async startCalls(runId, claimToken, stepIndex, batchIndexes, options) {
      const run = held(runId, claimToken);
      if (options.wave && run.cancelRequested) return { cancelPending: run.cancelRequested };
      for (const batchIndex of batchIndexes) call(run, stepIndex, batchIndex);
      log.audit(
        run,
        (options.approvals ?? []).filter((approval) => batchIndexes.includes(approval.batchIndex)),
      );
      for (const event of options.first ?? []) append(run, event);
      if (options.wave) {
        append(run, { type: "wave_started", payload: { stepIndex, batchIndexes: [...batchIndexes] } });
      }
      const seqs = batchIndexes.map((batchIndex) =>
        append(run, { type: "call_started", payload: { stepIndex, batchIndex } }),
      );
      return { seqs };
    },

    async settleCalls(runId, claimToken, stepIndex, settled) {
      const run = held(runId, claimToken);
      for (const { batchIndex } of settled) call(run, stepIndex, batchIndex);
      return settled.map(({ batchIndex, outcome }) =>
        append(run, { type: "call_settled", payload: { stepIndex, batchIndex, ...outcome } }),
      );
    },

    async invalidateCalls(runId, claimToken, stepIndex, outcomes, reason) {
      const run = held(runId, claimToken);
      for (const { batchIndex } of outcomes) call(run, stepIndex, batchIndex);
      append(run, callsInvalidatedEvent(stepIndex, outcomes, reason));
    },

    async finishStep(runId, claimToken, stepIndex, metrics) {
      const run = held(runId, claimToken);
      append(run, { type: "step_finished", payload: { stepIndex, metrics } });
      return { cancelPending: run.cancelRequested, allowedTools: copy(run.view.allowedTools) };
    },

    async suspendRun(runId, claimToken, state) {
      const run = held(runId, claimToken);
      run.state = copy(state);
      run.waitingSince = new Date(now()).toISOString();
      run.claimToken = null;
      run.leaseExpiresAt = null;
      const expiresAt = state.pending.expiresAt ? Date.parse(state.pending.expiresAt) : null;
      run.expiresAt = expiresAt;
      run.warnAt = expiresAt === null ? null : expiresAt - (expiresAt - now()) * 0.2;
      append(run, awaitingApprovalEvent(state));
    },

    async finishRun(runId, claimToken, status, error: RunError | null) {
      const run = held(runId, claimToken);
      const unsettled = log.runningCalls(run);
      if (unsettled.length > 0)
        throw new UnsettledCallsError(
          runId,
          unsettled.map(({ step, stepCall }) => `${step.index}:${stepCall.batchIndex}`),
        );
      run.state = null;
      run.claimToken = null;
      run.leaseExpiresAt = null;
      run.cancelRequested = null;
      append(run, { type: "run_finished", payload: { status, error } });
    },

    async forceFail(runId, error) {
      const run = runs.get(runId);
      const status = run && log.statusOf(run);
      if (!run || (status !== "RUNNING" && status !== "WAITING_FOR_APPROVAL")) return false;
      // A call it started and never settled is settled `interrupted` first: no run ends without them.
      for (const { step, stepCall } of log.runningCalls(run)) {
        append(run, {
          type: "call_settled",
          payload: {
            stepIndex: step.index,
            batchIndex: stepCall.batchIndex,
            status: "error",
            result: null,
            error: INTERRUPTED_BY_FAILURE,
          },
        });
      }
      // The state is kept: an operator inspects what could not be decoded.
      run.claimToken = null;
      run.leaseExpiresAt = null;
      append(run, { type: "run_finished", payload: { status: "FAILED", error } });
      return true;
    },

    async takeCancelRequest(runId, claimToken) {
      const run = held(runId, claimToken);
      const requested = run.cancelRequested;
      run.cancelRequested = null;
      return requested;
    },

    async requestCancel(runId, scope) {
      const run = runs.get(runId);
      if (!run || log.statusOf(run) !== "RUNNING") return false;
      // A pending "run" request is never weakened to "turn".
      run.cancelRequested = run.cancelRequested === "run" ? "run" : scope;
      return true;
    },
  };
}
