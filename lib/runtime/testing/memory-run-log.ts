/**
 * The in-memory store's one place of state: each run's appended events and
 * their fold. What the event log says (status, completions, grants, calls and
 * their outcomes, the final error) is read from the fold of the events, the
 * same `applyRunEvent` the pages use, so the state rules live in one place;
 * only what no event records is kept beside it (the waiting state, the claim
 * and its lease, a cancel request, the wait's deadline, the audit's rows, the
 * workspace files). The three seams (`memory-run-event-log.ts`,
 * `memory-run-claims.ts`, `memory-approval-store.ts`) write through it.
 */
import { RUN_EVENT_VERSIONS, type RunEvent, type StoredRunEvent } from "../events/run-events";
import { applyRunEvent, type CallView, emptyRunView, type RunView } from "../events/run-view";
import { APPROVAL_KINDS, type ApprovalRecord, type StoredApproval } from "../run/approval-records";
import { LostClaimError } from "../run/run-errors";
import type { RunRecord } from "../run/run-records";
import type { ApprovalAnnouncement, DecisionRecord } from "../run/run-store";
import type { RunStatus } from "../run/run-types";

export interface StoredRun {
  id: string;
  name: string;
  /** The run's events as stored (payloads are JSON copies), and their fold. */
  events: Array<{ seq: number; type: RunEvent["type"]; version: number; payload: unknown; at: string }>;
  view: RunView;
  scenario: unknown;
  /** The waiting state, raw: set when the run suspends or is released, cleared when it finishes. */
  state: unknown;
  claimToken: string | null;
  leaseExpiresAt: number | null;
  /**
   * A claim of a state too damaged to say which turn it takes is the one
   * change no event announces (the claimer then fails the run, which is): the
   * run is RUNNING until its next event.
   */
  claimedUnannounced: boolean;
  cancelRequested: "turn" | "run" | null;
  waitingSince: string | null;
  /** The wait's deadline and its warning time (ms), while it waits; the warning is cleared once announced. */
  expiresAt: number | null;
  warnAt: number | null;
  approvals: StoredApproval[];
  files: Map<string, string>;
}

export const copy = <T>(value: T): T => (value === undefined ? value : JSON.parse(JSON.stringify(value)));

/** The runs of one in-memory store, and what every seam needs to read and write them. */
export type MemoryRunLog = ReturnType<typeof createMemoryRunLog>;

export function createMemoryRunLog(now: () => number) {
  const runs = new Map<string, StoredRun>();

  /** Appends an event and folds it into the run's view; returns its seq. */
  function append(run: StoredRun, event: RunEvent): number {
    const stored = {
      seq: run.events.length + 1,
      type: event.type,
      version: RUN_EVENT_VERSIONS[event.type],
      payload: copy(event.payload),
      at: new Date(now()).toISOString(),
    };
    run.events.push(stored);
    run.view = applyRunEvent(run.view, copy(stored) as StoredRunEvent);
    run.claimedUnannounced = false;
    return stored.seq;
  }

  function newRun(fields: Omit<StoredRun, "events" | "view" | "claimedUnannounced">): StoredRun {
    return { ...fields, events: [], view: emptyRunView(fields.id), claimedUnannounced: false };
  }

  function existing(runId: string): StoredRun {
    const run = runs.get(runId);
    if (!run) throw new Error(`no run ${runId}`);
    return run;
  }

  const statusOf = (run: StoredRun): RunStatus => (run.claimedUnannounced ? "RUNNING" : run.view.status);

  /** The run, if `claimToken` holds it and it is RUNNING; otherwise the claim is lost. */
  function held(runId: string, claimToken: string): StoredRun {
    const run = runs.get(runId);
    if (!run || run.claimToken !== claimToken || statusOf(run) !== "RUNNING") throw new LostClaimError(runId);
    return run;
  }

  const isExpired = (run: StoredRun) =>
    statusOf(run) === "RUNNING" && (run.leaseExpiresAt === null || run.leaseExpiresAt < now());

  /** The record as a reader sees it: whether the lease ran out is read against the clock now. */
  function recordOf(run: StoredRun): RunRecord {
    const record = {
      id: run.id,
      status: statusOf(run),
      scenario: run.scenario,
      limits: run.view.limits as RunRecord["limits"],
      modelCalls: run.view.modelCalls,
      state: run.state,
      startedById: run.view.startedBy?.id ?? null,
      allowedTools: run.view.allowedTools,
    };
    return copy({
      ...record,
      leaseExpired: isExpired(run),
      // Everything a write can change, as text: equal only while nothing was written.
      version: JSON.stringify([record, run.claimToken, run.events.length, run.approvals.length]),
    });
  }

  /** A call of a stored step, as its events leave it. */
  function call(run: StoredRun, stepIndex: number, batchIndex: number): CallView {
    const found = run.view.steps
      .find((step) => step.index === stepIndex)
      ?.calls.find((stepCall) => stepCall.batchIndex === batchIndex);
    if (!found) throw new Error(`no call ${batchIndex} in step ${stepIndex} of run ${run.id}`);
    return found;
  }

  /** Calls the run started and never settled, as `step:batchIndex`. */
  const runningCalls = (run: StoredRun) =>
    run.view.steps.flatMap((step) =>
      step.calls.filter((stepCall) => stepCall.status === "running").map((stepCall) => ({ step, stepCall })),
    );

  function claim(
    run: StoredRun,
    claimToken: string,
    leaseMs: number,
    purpose: "decision" | "cancel" | "expiry",
  ) {
    run.claimToken = claimToken;
    run.leaseExpiresAt = now() + leaseMs;
    const state = run.state as { stepIndex?: unknown; pending?: { turnDigest?: unknown } } | null;
    // A state too damaged to say which turn is claimed is announced by the claimer failing the run.
    if (typeof state?.stepIndex === "number" && typeof state.pending?.turnDigest === "string") {
      append(run, {
        type: "run_claimed",
        payload: { stepIndex: state.stepIndex, turnDigest: state.pending.turnDigest, purpose },
      });
    } else {
      run.claimedUnannounced = true;
    }
  }

  /** Rows into the audit, stamped with the time they were recorded. */
  function audit(run: StoredRun, records: readonly ApprovalRecord[]) {
    const decidedAt = new Date(now()).toISOString();
    for (const { runId: _, ...approval } of records) run.approvals.push({ ...copy(approval), decidedAt });
  }

  /** What the audit table's checks let in (a database refuses the whole write otherwise). */
  const auditable = (records: readonly ApprovalRecord[]) =>
    records.every((record) => (APPROVAL_KINDS as readonly string[]).includes(record.kind));

  /** A decision's audit rows, announcement (a grant is folded from it) and barrier start (see `recordApproval`). */
  function writeDecision(
    holder: StoredRun,
    { records, event, startBarrier }: DecisionRecord<ApprovalAnnouncement>,
  ) {
    audit(holder, records);
    append(holder, event);
    if (startBarrier) {
      const { stepIndex } = startBarrier.resumed.payload;
      call(holder, stepIndex, startBarrier.batchIndex);
      append(holder, startBarrier.resumed);
      append(holder, { type: "call_started", payload: { stepIndex, batchIndex: startBarrier.batchIndex } });
    }
  }

  return {
    runs,
    append,
    newRun,
    existing,
    statusOf,
    held,
    isExpired,
    recordOf,
    call,
    runningCalls,
    claim,
    audit,
    auditable,
    writeDecision,
    now,
  };
}
