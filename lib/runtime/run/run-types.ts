import type { ToolOrigin } from "../tools/tool-definition";

/** Statuses of a run (docs/run-report.md). */
export const RUN_STATUSES = ["RUNNING", "WAITING_FOR_APPROVAL", "COMPLETED", "FAILED", "CANCELLED"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * A call's status. The run report's statuses (docs/run-report.md) plus `running`, which
 * only a live view ever sees (a settled or suspended run has none).
 */
export const CALL_STATUSES = [
  "pending",
  "running",
  "ok",
  "error",
  "denied",
  "invalidated",
  "not_dispatched",
  /** A barrier nobody decided in time: its approval expired (never a denial). */
  "expired",
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export interface RunError {
  code: string;
  message: string;
}

/** How a call ended, as the model and the report see it. */
export interface CallOutcome {
  status: CallStatus;
  result: unknown;
  error: RunError | null;
}

/** The calls an operator decides on: the barrier first, then the retained calls, in order. */
export interface PendingTurn {
  turnDigest: string;
  /**
   * A call of a tool defined elsewhere carries the fingerprint of the
   * definition it was planned (and is shown) with; the digest covers it.
   */
  calls: Array<{ id: string; name: string; arguments: string; batchIndex: number; toolFingerprint?: string }>;
  /**
   * The definitions of those tools as they were listed, for the approver:
   * exactly what each fingerprint hashes. Not part of the digest (the
   * fingerprints are); absent when no call has a fingerprint.
   */
  tools?: ShownToolDefinition[];
  /**
   * The batchIndexes of the turn's gates (approval-gated calls), in order: the
   * barrier first. Absent from turns stored before gates were listed, where
   * only the barrier is known. Not part of the digest: the calls are.
   */
  gates?: number[];
  /** When the wait expires, if the barrier's tool or the scenario set `approvalTimeoutSeconds` (ISO time). */
  expiresAt?: string;
  /**
   * How many distinct people must approve this turn's barrier (docs/policies.md#quorum): set when a
   * policy rule asks for more than one. Not part of the digest.
   */
  quorum?: number;
  /** Who has approved this very turn so far, in order, while a quorum is not yet met. Not part of the digest. */
  approvals?: QuorumApproval[];
}

/** One approval that counts toward a turn's quorum (docs/policies.md#quorum); its audit row shares `decisionId`. */
export interface QuorumApproval {
  actor: string;
  actorId: string | null;
  decisionId: string;
}

/** Per-step metrics, exactly the report's `metrics` shape (docs/run-report.md). */
export interface StepMetrics {
  originalSize: number;
  cap: number;
  waveCount: number;
  /** `[first, last]` batchIndex of each planned wave, in execution order. */
  waveBoundaries: Array<[number, number]>;
  completedWaves: number;
  approvalBarriers: number;
  /** Calls after the first barrier: kept with their original payloads across the suspension. */
  retainedCount: number;
  invalidatedCount: number;
  repairReason: string | null;
}

/** A tool defined elsewhere, as an approver is shown it: what its fingerprint covers, and where it comes from. */
export interface ShownToolDefinition {
  name: string;
  fingerprint: string;
  /** Untrusted text from the tool's server. */
  description: string;
  inputSchema: Record<string, unknown>;
  origin: ToolOrigin;
}
