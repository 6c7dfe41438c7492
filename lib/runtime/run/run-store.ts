import type { RunEvent, RunEventOf, StoredRunEvent } from "../events/run-events";
import type { CompletionRecord } from "../model/model";
import type { PreflightedCall } from "../preflight";
import type { Limits, Plan } from "../types";
import type { CallOutcome, CallStatus, RunError, RunStatus, StepMetrics } from "./run-types";
import type { SuspendedState } from "./suspended-state";
import type { ToolAllowances } from "./tool-allowances";

/** A run as the runtime needs it. `state` is raw: decode it with `decodeSuspendedState`. */
export interface RunRecord {
  id: string;
  status: RunStatus;
  /** The scenario the run was started from, opaque to the runtime: its host decodes it. */
  scenario: unknown;
  limits: Limits;
  modelCalls: number;
  state: unknown;
  /** The user who started the run, when the host knows one. */
  startedById: string | null;
  /** True when the run is RUNNING and its claim's lease has run out: its worker is gone. */
  leaseExpired: boolean;
  /** Tools granted for the rest of the run ("always allow"), by name. */
  allowedTools: ToolAllowances;
  /**
   * Opaque; different after any change to the stored run. A decision read at
   * one version can be claimed and recorded in one write while the run is
   * still at it ({@link RunStore.claimAndRecordDecision}).
   */
  version: string;
}

/** The outcome `forceFail` stores for a call its run had started and never settled. */
export const INTERRUPTED_BY_FAILURE: RunError = {
  code: "interrupted",
  message: "The run failed while this call ran; its outcome is unknown and it was not retried.",
};

/** The events that announce audit rows, in the write that stores them. */
export type ApprovalAnnouncement =
  | RunEventOf<"approval_decided">
  | RunEventOf<"approval_expired">
  | RunEventOf<"approval_voided">;

/** What {@link RunStore.recordApproval} writes for a decision: its audit rows, its announcement, and an approval's start. */
export interface DecisionRecord<Announcement extends ApprovalAnnouncement = RunEventOf<"approval_decided">> {
  records: readonly ApprovalRecord[];
  event: Announcement;
  startBarrier?: { resumed: RunEventOf<"run_resumed">; batchIndex: number };
}

/** A run this worker has just taken over, and the claim it now holds. */
export interface ClaimedRunRecord {
  run: RunRecord;
  claimToken: string;
}

/** A run about to start, claimed by the worker that creates it. */
export interface NewRun {
  id: string;
  name: string;
  scenario: unknown;
  limits: Limits;
  claimToken: string;
  leaseMs: number;
  startedBy: { id: string; name: string } | null;
  /** The operator's MCP servers whose tools it may use (its scenario's `mcpServers`); none when absent. */
  mcpServers?: string[];
  /** The run's workspace files, paths already normalised. */
  files: Array<{ path: string; content: string }>;
}

export interface NewStep {
  index: number;
  /** The completion the step comes from: its latency, usage and the preamble the model read. */
  completion: CompletionRecord;
  text: string | null;
  plan: Plan;
  metrics: StepMetrics;
  calls: Array<{ call: PreflightedCall; status: CallStatus; error: RunError | null }>;
}

/**
 * One row of the append-only audit (SPEC §5): a decision on one gate. A
 * decision that approves every gate of a turn writes a row per gate, sharing
 * its `decisionId`.
 */
export interface ApprovalRecord {
  runId: string;
  /** The digest of the whole pending turn the decision was bound to. */
  turnDigest: string;
  approve: boolean;
  /** Who decided, by name, and by user id when the host knows one (null in headless runs). */
  actor: string;
  actorId: string | null;
  /** A denial's reply to the model (shown to it in the next completion). */
  reason: string | null;
  /** Shared by every row one decision wrote. */
  decisionId: string;
  /**
   * A person's (or a scenario's) `decision`; an `expiry` of the wait; an
   * `automatic` approval under a grant; an approval `voided` because its
   * tool's definition changed before the call was sent.
   */
  kind: (typeof APPROVAL_KINDS)[number];
  /** For an automatic approval: the decision that granted it; for a voided one: the approval it voids. */
  grantedBy: string | null;
  /** `gate`: the barrier alone; `turn`: every gate of the pending turn, in order. */
  scope: "gate" | "turn";
  /** The gate this row decides: its batchIndex, call id and tool. */
  batchIndex: number;
  callId: string;
  toolName: string;
  /** The gate's arguments as they were shown, and the digest of the call with them. */
  arguments: string;
  argumentsDigest: string;
  /** The arguments the approver changed them to, and the digest of the call with those; null when unchanged. */
  editedArguments: string | null;
  editedDigest: string | null;
}

export const APPROVAL_KINDS = ["decision", "expiry", "automatic", "voided"] as const;

/** A stored audit row's kind, checked: an unknown one is a damaged row, never guessed at. */
export function decodeApprovalKind(stored: string): ApprovalRecord["kind"] {
  const kind = APPROVAL_KINDS.find((known) => known === stored);
  if (!kind) throw new Error(`an approvals row has an unknown kind ${JSON.stringify(stored)}`);
  return kind;
}

/** What rows written before decisions named their gate do not have (null there). */
type NamedGate = "decisionId" | "batchIndex" | "callId" | "toolName" | "arguments" | "argumentsDigest";

/** An audited decision as stored, with the time it was recorded (ISO). */
export interface StoredApproval extends Omit<ApprovalRecord, "runId" | NamedGate> {
  decisionId: string | null;
  batchIndex: number | null;
  callId: string | null;
  toolName: string | null;
  arguments: string | null;
  argumentsDigest: string | null;
  decidedAt: string;
}

/**
 * The persistence port of the run loop and the coordinator. Every method that
 * changes what a client may see commits the change and its event in one
 * transaction, and only then returns (SPEC §6: durable before announced).
 * Event sequence numbers are per run, gap-free, and also stamp call starts and
 * settles (`startSeq`, `settleSeq`). Events are built from the catalogue in
 * `events/run-events.ts` and nowhere else.
 *
 * Methods taking a `claimToken` are fenced: they change the run only while
 * that token holds its claim (checked in the same statement that takes the
 * event's seq) and throw `LostClaimError` otherwise, writing nothing. A
 * worker whose claim was taken over can therefore never write again.
 *
 * Every implementation passes the contract suite in `run-store.contract.ts`.
 */
export interface RunStore {
  /** Stores a new RUNNING run claimed by `claimToken`, with its files, and emits `run_started`. */
  createRun(run: NewRun): Promise<void>;
  getRun(runId: string): Promise<RunRecord | null>;
  /**
   * The run's events after `afterSeq`, decoded, in seq order; at most `limit`
   * of them when given (a stream replays a long history a page at a time).
   */
  readEvents(runId: string, afterSeq: number, limit?: number): Promise<StoredRunEvent[]>;
  /** The run's audited decisions, oldest first. */
  listApprovals(runId: string): Promise<StoredApproval[]>;
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
   * (a grant revoked meanwhile is gone).
   */
  finishStep(
    runId: string,
    claimToken: string,
    stepIndex: number,
    metrics: StepMetrics,
  ): Promise<{ cancelPending: "turn" | "run" | null; allowedTools: ToolAllowances }>;
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
   * RUNNING → WAITING_FOR_APPROVAL with the state; claim cleared; emits
   * `awaiting_approval`. A pending turn with `expiresAt` sets the wait's
   * deadline, and its warning at 80% of the time left.
   */
  suspendRun(runId: string, claimToken: string, state: SuspendedState): Promise<void>;
  /**
   * Announces `approval_expiring` for waits past their warning time (each
   * once), at most `limit`; returns how many. Any instance may call it.
   */
  announceExpiringWaits(limit: number): Promise<number>;
  /** Waiting runs whose wait is past its deadline, oldest deadline first, at most `limit`. */
  listExpiredWaits(limit: number): Promise<string[]>;
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
   * write as `error` {@link INTERRUPTED_BY_FAILURE} (with its `call_settled`):
   * the run does not end with a call still running. Never throws.
   */
  forceFail(runId: string, error: RunError): Promise<boolean>;
  /** Reads and clears a cancellation requested while the run is RUNNING. */
  takeCancelRequest(runId: string, claimToken: string): Promise<"turn" | "run" | null>;
  /** Asks a RUNNING run to cancel; false when the run is not RUNNING. */
  requestCancel(runId: string, scope: "turn" | "run"): Promise<boolean>;
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
}
