import type { RunEvent, RunEventOf, RunEventType, StoredRunEvent } from "../events/run-events";
import type { ApprovalRecord, StoredApproval } from "./approval-records";
import type { ClaimedRunRecord, NewRun, NewStep, RunRecord } from "./run-records";
import type { CallOutcome, RunError, StepMetrics } from "./run-types";
import type { SuspendedState } from "./suspended-state";
import type { ToolAllowances } from "./tool-allowances";

/** The events that announce audit rows, in the write that stores them. */
export type ApprovalAnnouncement =
  | RunEventOf<"approval_decided">
  | RunEventOf<"approval_expired">
  | RunEventOf<"approval_voided">
  | RunEventOf<"approval_counted">;

/** What {@link ApprovalStore.recordApproval} writes for a decision: its audit rows, its announcement, and an approval's start. */
export interface DecisionRecord<Announcement extends ApprovalAnnouncement = RunEventOf<"approval_decided">> {
  records: readonly ApprovalRecord[];
  event: Announcement;
  startBarrier?: { resumed: RunEventOf<"run_resumed">; batchIndex: number };
}

/**
 * The persistence port of the run loop and the coordinator, in three seams:
 * the run and its event log ({@link RunEventLog}), claims and leases
 * ({@link RunClaims}), and the approvals audit with the waits it decides
 * ({@link ApprovalStore}). Code that needs one seam takes only that one; a
 * `RunStore` is all three, as every store implements them.
 *
 * Every method that changes what a client may see commits the change and its
 * event in one transaction, and only then returns (durable before announced:
 * docs/architecture.md#the-one-way-data-flows). Event sequence numbers are per
 * run, gap-free, and also stamp call starts and settles (`startSeq`,
 * `settleSeq`). Events are built from the catalogue in
 * `events/run-events.ts` and nowhere else.
 *
 * Methods taking a `claimToken` are fenced: they change the run only while
 * that token holds its claim (checked in the same statement that takes the
 * event's seq) and throw `LostClaimError` otherwise, writing nothing. A
 * worker whose claim was taken over can therefore never write again.
 *
 * Every implementation passes the contract suite in `run-store.contract.ts`
 * (one file per seam).
 */
export type RunStore = RunEventLog & RunClaims & ApprovalStore;

/** A run, its steps and calls, and its event log: what the run loop writes as it drives a run. */
export interface RunEventLog {
  /** Stores a new RUNNING run claimed by `claimToken`, with its files, and emits `run_started`. */
  createRun(run: NewRun): Promise<void>;
  getRun(runId: string): Promise<RunRecord | null>;
  /**
   * The run's events after `afterSeq`, decoded, in seq order; at most `limit`
   * of them when given (a stream replays a long history a page at a time).
   */
  readEvents(runId: string, afterSeq: number, limit?: number): Promise<StoredRunEvent[]>;
  /**
   * The run's latest event whose type is one of `types`, decoded as `readEvents` decodes it; null
   * when it has none. Read from the newest seq back, so it costs about the same however long the
   * history: a decision refused because the run is not waiting asks which event last took up or
   * gave the run a turn, and every loser of a race of approvers asks it.
   */
  readLatestEvent(runId: string, types: readonly RunEventType[]): Promise<StoredRunEvent | null>;
  /** Appends an event; returns its seq. */
  appendEvent(runId: string, claimToken: string, event: RunEvent): Promise<number>;
  /** Stores a planned step and its calls, sets the run's completion count, emits `step_planned`. */
  recordStep(runId: string, claimToken: string, step: NewStep, modelCalls: number): Promise<void>;
  /**
   * Starts calls in one write: `options.first` (events that lead up to it,
   * such as `run_resumed`), then `wave_started` when `wave`, then each call's
   * `call_started`, each call marked running and stamped with its seq (its
   * `startSeq`); returns the calls' seqs in order. A wave does not start
   * while a cancel is pending: nothing is written, and the pending scope is
   * returned instead (take it with `takeCancelRequest`).
   */
  startCalls(
    runId: string,
    claimToken: string,
    stepIndex: number,
    batchIndexes: readonly number[],
    options: {
      wave: boolean;
      first?: readonly RunEvent[];
      /** Automatic approvals of started calls (by their `batchIndex`), audited in the same write. */
      approvals?: readonly ApprovalRecord[];
    },
  ): Promise<{ seqs: number[] } | { cancelPending: "turn" | "run" }>;
  /** Stores calls' outcomes and their `call_settled` events in one write; returns the seqs (their `settleSeq`s) in order. */
  settleCalls(
    runId: string,
    claimToken: string,
    stepIndex: number,
    settled: ReadonlyArray<{ batchIndex: number; outcome: CallOutcome }>,
  ): Promise<number[]>;
  /** Settles never-started calls as `invalidated`/`denied` without seqs; emits one `calls_invalidated`. */
  invalidateCalls(
    runId: string,
    claimToken: string,
    stepIndex: number,
    outcomes: Array<{ batchIndex: number; outcome: CallOutcome }>,
    reason: string,
  ): Promise<void>;
  /**
   * Stores the step's final metrics and emits `step_finished`; says whether a
   * cancel is pending (without taking it), and which tools are granted now
   * (a grant revoked meanwhile is gone). `runCancelled`: a cancel of the
   * whole run ended the step (readers learn the run's end follows).
   */
  finishStep(
    runId: string,
    claimToken: string,
    stepIndex: number,
    metrics: StepMetrics,
    options?: { runCancelled?: boolean },
  ): Promise<{ cancelPending: "turn" | "run" | null; allowedTools: ToolAllowances }>;
  /**
   * RUNNING → WAITING_FOR_APPROVAL with the state; claim cleared; emits
   * `awaiting_approval`. A pending turn with `expiresAt` sets the wait's
   * deadline, and its warning at 80% of the time left.
   */
  suspendRun(runId: string, claimToken: string, state: SuspendedState): Promise<void>;
  /**
   * RUNNING → a final status; claim cleared; state kept; emits `run_finished`.
   * Refused with `UnsettledCallsError`, writing nothing, while a call the run
   * started (`call_started`) has no stored outcome: no run ends past a call
   * whose outcome was lost.
   */
  finishRun(
    runId: string,
    claimToken: string,
    status: "COMPLETED" | "FAILED" | "CANCELLED",
    error: RunError | null,
  ): Promise<void>;
  /**
   * Settles the run FAILED whoever holds it (for states no worker can
   * continue). A call it started and never settled is settled in the same
   * write as `error` `INTERRUPTED_BY_FAILURE` (`run-records.ts`), with its
   * `call_settled`: the run does not end with a call still running. Never throws.
   */
  forceFail(runId: string, error: RunError): Promise<boolean>;
  /** Asks a RUNNING run to cancel; false when the run is not RUNNING. */
  requestCancel(runId: string, scope: "turn" | "run"): Promise<boolean>;
  /** Reads and clears a cancellation requested while the run is RUNNING. */
  takeCancelRequest(runId: string, claimToken: string): Promise<"turn" | "run" | null>;
}

/** Who drives a run: a claim with a lease, taken, renewed, handed back and taken over when it runs out. */
export interface RunClaims {
  /**
   * Atomic WAITING_FOR_APPROVAL → RUNNING with a claim and lease, announced
   * in the same write as `run_claimed` (the step and turn digest of the
   * claimed state); null when lost. A claim another one is taking at that
   * moment is lost at once, without waiting for it.
   */
  claimWaitingRun(
    runId: string,
    claimToken: string,
    leaseMs: number,
    purpose: "decision" | "cancel" | "expiry",
  ): Promise<RunRecord | null>;
  /**
   * RUNNING → WAITING_FOR_APPROVAL, claim cleared, `state` written back, and
   * `run_released` emitted; false (never a throw) if it failed.
   */
  releaseRun(
    runId: string,
    claimToken: string,
    state: unknown,
    event: RunEventOf<"run_released">,
  ): Promise<boolean>;
  /** Extends the claim's lease to `leaseMs` from now; false when the claim is no longer held. */
  renewLease(runId: string, claimToken: string, leaseMs: number): Promise<boolean>;
  /**
   * Takes over RUNNING runs whose lease has run out, each with a fresh claim
   * token and lease: at most `limit`, oldest expiry first, or just `runId`.
   * Concurrent callers never take the same run (the database skips rows
   * another transaction has locked).
   */
  claimExpiredRuns(options: { leaseMs: number; limit: number; runId?: string }): Promise<ClaimedRunRecord[]>;
}

/**
 * The append-only approvals audit, the grants and waits decisions make, and a
 * decision's claim and record in one write.
 */
export interface ApprovalStore {
  /** The run's audited decisions, oldest first. */
  listApprovals(runId: string): Promise<StoredApproval[]>;
  /**
   * Appends a decision's rows (one per gate it decides) to the approvals
   * audit and, in the same write: announces the decision (`announce`, as the
   * holder of the claim); for an approval, starts the barrier call
   * (`announce.startBarrier`: its `run_resumed`, then its `call_started`, the
   * call marked running as by `startCalls`); when the event names
   * `allowTool`, grants that tool for the rest of the run, as this decision.
   * False when the audit could not store it, and then nothing is announced,
   * started or granted. Throws only `LostClaimError` (nothing stored) when
   * the claim is no longer held.
   */
  recordApproval(
    records: readonly ApprovalRecord[],
    announce: {
      claimToken: string;
      event: ApprovalAnnouncement;
      startBarrier?: { resumed: RunEventOf<"run_resumed">; batchIndex: number };
    },
  ): Promise<boolean>;
  /**
   * A decision's claim and its record in one write, while the run is exactly
   * as it was read (`unchangedSince`, its `version` then): the claim as by
   * `claimWaitingRun` (purpose `decision`, its `run_claimed` saying the
   * stored step and turn digest), then what `recordApproval` writes for
   * `decision`. True when both were written. False, with nothing written,
   * when the run changed since it was read, another claim holds it or is
   * taking it, or the audit could not store the decision: the caller then
   * claims and records the long way, which says which it was.
   */
  claimAndRecordDecision(
    runId: string,
    claimToken: string,
    leaseMs: number,
    unchangedSince: string,
    decision: DecisionRecord,
  ): Promise<boolean>;
  /**
   * One approval toward a quorum that it does not meet (docs/policies.md#quorum), in one write,
   * while the run is exactly as it was read (`unchangedSince`, its `version` then), still waiting
   * and not past its deadline, with no claim taken: its audit row (kind `partial`), the run's
   * state with the approval counted (`state`; for an edit, the new turn), and its announcement
   * (`approval_counted`, then for an edit `awaiting_approval` with the new turn). False, with
   * nothing written, when the run changed since it was read, is claimed or due, or the audit
   * could not store it.
   */
  recordPartialApproval(
    runId: string,
    unchangedSince: string,
    approval: {
      records: readonly ApprovalRecord[];
      event: RunEventOf<"approval_counted">;
      state: SuspendedState;
      /** Set for an edit: the new turn's `awaiting_approval`, announced after the count. */
      awaiting?: RunEventOf<"awaiting_approval">;
    },
  ): Promise<boolean>;
  /**
   * Revokes a run's grant of `toolName` and emits `tool_allowance_revoked`,
   * whoever holds the run; false when the run has no such grant.
   */
  revokeToolAllowance(
    runId: string,
    toolName: string,
    by: { actor: string; actorId: string | null },
  ): Promise<boolean>;
  /**
   * Announces `approval_expiring` for waits past their warning time (each
   * once), at most `limit`; returns how many. Any instance may call it.
   */
  announceExpiringWaits(limit: number): Promise<number>;
  /** Waiting runs whose wait is past its deadline, oldest deadline first, at most `limit`. */
  listExpiredWaits(limit: number): Promise<string[]>;
}
