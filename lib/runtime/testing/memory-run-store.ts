/**
 * A `RunStore` in memory, for tests and benchmarks of the runtime alone. It
 * keeps the database store's promises (the contract suite checks both): each
 * method's changes and its event happen together or not at all, seqs are
 * gap-free, claim tokens fence every write of a holder, and what is stored is
 * a JSON copy, so a caller mutating what it passed or read changes nothing.
 */
import {
  awaitingApprovalEvent,
  callsInvalidatedEvent,
  decodeRunEvent,
  RUN_EVENT_VERSIONS,
  type RunEvent,
  type StoredRunEvent,
  stepPlannedEvent,
} from "../events/run-events";
import { LostClaimError, UnsettledCallsError } from "../run/run-errors";
import {
  APPROVAL_KINDS,
  type ApprovalAnnouncement,
  type ApprovalRecord,
  type DecisionRecord,
  INTERRUPTED_BY_FAILURE,
  type RunRecord,
  type RunStore,
  type StoredApproval,
} from "../run/run-store";
import type { CallOutcome, CallStatus, RunError, RunStatus } from "../run/run-types";

interface StoredRun {
  record: Omit<RunRecord, "version">;
  name: string;
  claimToken: string | null;
  leaseExpiresAt: number | null;
  cancelRequested: "turn" | "run" | null;
  error: RunError | null;
  waitingSince: string | null;
  /** The wait's deadline and its warning time (ms), while it waits; the warning is cleared once announced. */
  expiresAt: number | null;
  warnAt: number | null;
  events: Array<{ seq: number; type: RunEvent["type"]; version: number; payload: unknown; at: string }>;
  approvals: StoredApproval[];
  files: Map<string, string>;
  calls: Map<
    string,
    { status: CallStatus; outcome: CallOutcome | null; startSeq: number | null; settleSeq: number | null }
  >;
}

/** The in-memory store, with what a test may want to look at beyond the port. */
export interface MemoryRunStore extends RunStore {
  /** The run's workspace files as the run was created with them. */
  initialFiles(runId: string): Record<string, string>;
  /** The whole stored row, as a test inspects a database row: the record plus claim, lease and error. */
  inspect(runId: string): RunRecord & {
    claimToken: string | null;
    leaseExpiresAt: number | null;
    error: RunError | null;
  };
  /** Replaces a run's stored state, as a bad deploy or a hand edit would (fault tests). */
  overwriteState(runId: string, state: unknown): void;
}

const copy = <T>(value: T): T => (value === undefined ? value : JSON.parse(JSON.stringify(value)));
const callKey = (stepIndex: number, batchIndex: number) => `${stepIndex}:${batchIndex}`;

export function createMemoryRunStore(options: { now?: () => number } = {}): MemoryRunStore {
  const now = options.now ?? Date.now;
  const runs = new Map<string, StoredRun>();

  function append(run: StoredRun, event: RunEvent): number {
    const seq = run.events.length + 1;
    run.events.push({
      seq,
      type: event.type,
      version: RUN_EVENT_VERSIONS[event.type],
      payload: copy(event.payload),
      at: new Date(now()).toISOString(),
    });
    return seq;
  }

  function existing(runId: string): StoredRun {
    const run = runs.get(runId);
    if (!run) throw new Error(`no run ${runId}`);
    return run;
  }

  /** The run, if `claimToken` holds it and it is RUNNING; otherwise the claim is lost. */
  function held(runId: string, claimToken: string): StoredRun {
    const run = runs.get(runId);
    if (!run || run.claimToken !== claimToken || run.record.status !== "RUNNING")
      throw new LostClaimError(runId);
    return run;
  }

  const isExpired = (run: StoredRun) =>
    run.record.status === "RUNNING" && (run.leaseExpiresAt === null || run.leaseExpiresAt < now());

  /** The record as a reader sees it: whether the lease ran out is read against the clock now. */
  const recordOf = (run: StoredRun): RunRecord => ({
    ...run.record,
    leaseExpired: isExpired(run),
    // Everything a write can change, as text: equal only while nothing was written.
    version: JSON.stringify([run.record, run.claimToken, run.events.length, run.approvals.length]),
  });

  function setStatus(run: StoredRun, status: RunStatus) {
    run.record = { ...run.record, status };
  }

  function call(run: StoredRun, stepIndex: number, batchIndex: number) {
    const found = run.calls.get(callKey(stepIndex, batchIndex));
    if (!found) throw new Error(`no call ${batchIndex} in step ${stepIndex} of run ${run.record.id}`);
    return found;
  }

  function claim(
    run: StoredRun,
    claimToken: string,
    leaseMs: number,
    purpose: "decision" | "cancel" | "expiry",
  ) {
    setStatus(run, "RUNNING");
    run.claimToken = claimToken;
    run.leaseExpiresAt = now() + leaseMs;
    const state = run.record.state as { stepIndex?: unknown; pending?: { turnDigest?: unknown } } | null;
    // A state too damaged to say which turn is claimed is announced by the claimer failing the run.
    if (typeof state?.stepIndex === "number" && typeof state.pending?.turnDigest === "string") {
      append(run, {
        type: "run_claimed",
        payload: { stepIndex: state.stepIndex, turnDigest: state.pending.turnDigest, purpose },
      });
    }
  }

  /** What the audit table's checks let in (a database refuses the whole write otherwise). */
  const auditable = (records: readonly ApprovalRecord[]) =>
    records.every((record) => (APPROVAL_KINDS as readonly string[]).includes(record.kind));

  /** A decision's audit rows, announcement, barrier start and grant (see `recordApproval`). */
  function writeDecision(
    holder: StoredRun,
    { records, event, startBarrier }: DecisionRecord<ApprovalAnnouncement>,
  ) {
    const decidedAt = new Date(now()).toISOString();
    for (const { runId: _, ...approval } of records) holder.approvals.push({ ...copy(approval), decidedAt });
    append(holder, event);
    const granted = event.type === "approval_decided" ? event.payload : null;
    if (granted?.allowTool && granted.decisionId !== null) {
      const { allowTool, decisionId, actor, actorId } = granted;
      holder.record = {
        ...holder.record,
        allowedTools: { ...holder.record.allowedTools, [allowTool]: { decisionId, actor, actorId } },
      };
    }
    if (startBarrier) {
      const { stepIndex } = startBarrier.resumed.payload;
      const target = call(holder, stepIndex, startBarrier.batchIndex);
      append(holder, startBarrier.resumed);
      const seq = append(holder, {
        type: "call_started",
        payload: { stepIndex, batchIndex: startBarrier.batchIndex },
      });
      if (target) {
        target.status = "running";
        target.startSeq = seq;
      }
    }
  }

  return {
    async createRun(newRun) {
      if (runs.has(newRun.id)) throw new Error(`run ${newRun.id} already exists`);
      const run: StoredRun = {
        record: {
          id: newRun.id,
          status: "RUNNING",
          scenario: copy(newRun.scenario),
          limits: copy(newRun.limits),
          modelCalls: 0,
          state: null,
          startedById: newRun.startedBy?.id ?? null,
          leaseExpired: false,
          allowedTools: {},
        },
        name: newRun.name,
        claimToken: newRun.claimToken,
        leaseExpiresAt: now() + newRun.leaseMs,
        cancelRequested: null,
        error: null,
        waitingSince: null,
        expiresAt: null,
        warnAt: null,
        events: [],
        approvals: [],
        files: new Map(newRun.files.map((file) => [file.path, file.content])),
        calls: new Map(),
      };
      append(run, {
        type: "run_started",
        payload: {
          name: newRun.name,
          limits: newRun.limits,
          startedBy: newRun.startedBy,
          mcpServers: newRun.mcpServers ?? [],
        },
      });
      runs.set(newRun.id, run);
    },

    async getRun(runId) {
      const run = runs.get(runId);
      return run ? copy(recordOf(run)) : null;
    },

    async readEvents(runId, afterSeq, limit) {
      const run = runs.get(runId);
      if (!run) return [];
      return run.events
        .filter((event) => event.seq > afterSeq)
        .slice(0, limit)
        .map((event): StoredRunEvent => decodeRunEvent(runId, copy(event)));
    },

    async listApprovals(runId) {
      return copy(runs.get(runId)?.approvals ?? []);
    },

    async appendEvent(runId, claimToken, event) {
      return append(held(runId, claimToken), event);
    },

    async recordStep(runId, claimToken, step, modelCalls) {
      const run = held(runId, claimToken);
      if (step.calls.some(({ call }) => run.calls.has(callKey(step.index, call.batchIndex)))) {
        throw new Error(`step ${step.index} of run ${runId} is already stored`);
      }
      for (const { call, status } of step.calls) {
        run.calls.set(callKey(step.index, call.batchIndex), {
          status,
          outcome: null,
          startSeq: null,
          settleSeq: null,
        });
      }
      run.record = { ...run.record, modelCalls };
      append(run, stepPlannedEvent(step, modelCalls));
    },

    async startCalls(runId, claimToken, stepIndex, batchIndexes, options) {
      const run = held(runId, claimToken);
      if (options.wave && run.cancelRequested) return { cancelPending: run.cancelRequested };
      const stored = batchIndexes.map((batchIndex) => call(run, stepIndex, batchIndex));
      const decidedAt = new Date(now()).toISOString();
      for (const { runId: _, ...approval } of options.approvals ?? []) {
        if (batchIndexes.includes(approval.batchIndex)) run.approvals.push({ ...copy(approval), decidedAt });
      }
      for (const event of options.first ?? []) append(run, event);
      if (options.wave) {
        append(run, { type: "wave_started", payload: { stepIndex, batchIndexes: [...batchIndexes] } });
      }
      const seqs = batchIndexes.map((batchIndex, index) => {
        const seq = append(run, { type: "call_started", payload: { stepIndex, batchIndex } });
        const target = stored[index];
        if (target) {
          target.status = "running";
          target.startSeq = seq;
        }
        return seq;
      });
      return { seqs };
    },

    async settleCalls(runId, claimToken, stepIndex, settled) {
      const run = held(runId, claimToken);
      const stored = settled.map(({ batchIndex }) => call(run, stepIndex, batchIndex));
      return settled.map(({ batchIndex, outcome }, index) => {
        const seq = append(run, { type: "call_settled", payload: { stepIndex, batchIndex, ...outcome } });
        const target = stored[index];
        if (target) {
          target.status = outcome.status;
          target.outcome = copy(outcome);
          target.settleSeq = seq;
        }
        return seq;
      });
    },

    async invalidateCalls(runId, claimToken, stepIndex, outcomes, reason) {
      const run = held(runId, claimToken);
      const stored = outcomes.map(({ batchIndex }) => call(run, stepIndex, batchIndex));
      outcomes.forEach(({ outcome }, index) => {
        const target = stored[index];
        if (target) {
          target.status = outcome.status;
          target.outcome = copy(outcome);
        }
      });
      append(run, callsInvalidatedEvent(stepIndex, outcomes, reason));
    },

    async finishStep(runId, claimToken, stepIndex, metrics) {
      const run = held(runId, claimToken);
      append(run, { type: "step_finished", payload: { stepIndex, metrics } });
      return { cancelPending: run.cancelRequested, allowedTools: copy(run.record.allowedTools) };
    },

    async revokeToolAllowance(runId, toolName, by) {
      const run = runs.get(runId);
      if (!run || !Object.hasOwn(run.record.allowedTools, toolName)) return false;
      const { [toolName]: _, ...rest } = run.record.allowedTools;
      run.record = { ...run.record, allowedTools: rest };
      append(run, { type: "tool_allowance_revoked", payload: { toolName, ...by } });
      return true;
    },

    async suspendRun(runId, claimToken, state) {
      const run = held(runId, claimToken);
      run.record = { ...run.record, status: "WAITING_FOR_APPROVAL", state: copy(state) };
      run.waitingSince = new Date(now()).toISOString();
      run.claimToken = null;
      run.leaseExpiresAt = null;
      const expiresAt = state.pending.expiresAt ? Date.parse(state.pending.expiresAt) : null;
      run.expiresAt = expiresAt;
      run.warnAt = expiresAt === null ? null : expiresAt - (expiresAt - now()) * 0.2;
      append(run, awaitingApprovalEvent(state));
    },

    async announceExpiringWaits(limit) {
      const due = [...runs.values()]
        .filter(
          (run) => run.record.status === "WAITING_FOR_APPROVAL" && run.warnAt !== null && run.warnAt <= now(),
        )
        .slice(0, limit);
      for (const run of due) {
        run.warnAt = null;
        const state = run.record.state as { stepIndex: number; pending: { turnDigest: string } };
        append(run, {
          type: "approval_expiring",
          payload: {
            stepIndex: state.stepIndex,
            turnDigest: state.pending.turnDigest,
            expiresAt: new Date(run.expiresAt ?? now()).toISOString(),
          },
        });
      }
      return due.length;
    },

    async listExpiredWaits(limit) {
      return [...runs.values()]
        .filter(
          (run) =>
            run.record.status === "WAITING_FOR_APPROVAL" && run.expiresAt !== null && run.expiresAt <= now(),
        )
        .sort((a, b) => (a.expiresAt ?? 0) - (b.expiresAt ?? 0))
        .slice(0, limit)
        .map((run) => run.record.id);
    },

    async finishRun(runId, claimToken, status, error: RunError | null) {
      const run = held(runId, claimToken);
      const unsettled = [...run.calls].filter(([, stored]) => stored.status === "running");
      if (unsettled.length > 0)
        throw new UnsettledCallsError(
          runId,
          unsettled.map(([key]) => key),
        );
      run.record = { ...run.record, status, state: null };
      run.error = copy(error);
      run.claimToken = null;
      run.leaseExpiresAt = null;
      run.cancelRequested = null;
      append(run, { type: "run_finished", payload: { status, error } });
    },

    async forceFail(runId, error) {
      const run = runs.get(runId);
      if (!run || (run.record.status !== "RUNNING" && run.record.status !== "WAITING_FOR_APPROVAL"))
        return false;
      // A call it started and never settled is settled `interrupted` first: no run ends without them.
      for (const [key, stored] of run.calls) {
        if (stored.status !== "running") continue;
        const [stepIndex = 0, batchIndex = 0] = key.split(":").map(Number);
        const outcome: CallOutcome = { status: "error", result: null, error: INTERRUPTED_BY_FAILURE };
        stored.status = "error";
        stored.outcome = outcome;
        stored.settleSeq = append(run, {
          type: "call_settled",
          payload: { stepIndex, batchIndex, ...outcome },
        });
      }
      // The state is kept: an operator inspects what could not be decoded.
      setStatus(run, "FAILED");
      run.error = copy(error);
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
      if (run?.record.status !== "RUNNING") return false;
      // A pending "run" request is never weakened to "turn".
      run.cancelRequested = run.cancelRequested === "run" ? "run" : scope;
      return true;
    },

    async claimWaitingRun(runId, claimToken, leaseMs, purpose) {
      const run = runs.get(runId);
      if (run?.record.status !== "WAITING_FOR_APPROVAL") return null;
      claim(run, claimToken, leaseMs, purpose);
      return copy(recordOf(run));
    },

    async claimAndRecordDecision(runId, claimToken, leaseMs, unchangedSince, decision) {
      const run = runs.get(runId);
      if (run?.record.status !== "WAITING_FOR_APPROVAL" || recordOf(run).version !== unchangedSince)
        return false;
      if (!auditable(decision.records)) return false;
      claim(run, claimToken, leaseMs, "decision");
      writeDecision(run, decision);
      return true;
    },

    async releaseRun(runId, claimToken, state, event) {
      const run = runs.get(runId);
      if (!run || run.claimToken !== claimToken || run.record.status !== "RUNNING") return false;
      run.record = { ...run.record, status: "WAITING_FOR_APPROVAL", state: copy(state) };
      run.claimToken = null;
      run.leaseExpiresAt = null;
      append(run, event);
      return true;
    },

    async renewLease(runId, claimToken, leaseMs) {
      const run = runs.get(runId);
      if (run?.claimToken !== claimToken || run.record.status !== "RUNNING") return false;
      run.leaseExpiresAt = now() + leaseMs;
      return true;
    },

    async claimExpiredRuns({ leaseMs, limit, runId }) {
      const expired = [...runs.values()]
        .filter((run) => isExpired(run) && (runId === undefined || run.record.id === runId))
        .sort((a, b) => (a.leaseExpiresAt ?? 0) - (b.leaseExpiresAt ?? 0))
        .slice(0, limit);
      return expired.map((run) => {
        run.claimToken = crypto.randomUUID();
        run.leaseExpiresAt = now() + leaseMs;
        return { run: copy(recordOf(run)), claimToken: run.claimToken };
      });
    },

    async recordApproval(records, announce) {
      const runId = records[0]?.runId;
      const run = runId === undefined ? undefined : runs.get(runId);
      if (!run || runId === undefined) return false;
      const { claimToken, ...decision } = announce;
      const holder = held(runId, claimToken);
      if (!auditable(records)) return false;
      writeDecision(holder, { records, ...decision });
      return true;
    },

    initialFiles(runId) {
      return Object.fromEntries(existing(runId).files);
    },

    inspect(runId) {
      const run = existing(runId);
      return copy({
        ...recordOf(run),
        claimToken: run.claimToken,
        leaseExpiresAt: run.leaseExpiresAt,
        error: run.error,
      });
    },

    overwriteState(runId, state) {
      const run = existing(runId);
      run.record = { ...run.record, state: copy(state) };
    },
  };
}
