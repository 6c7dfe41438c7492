import type { TranscriptEntry } from "../model/model";
import type { PreflightedCall } from "../preflight";
import type { Plan } from "../types";

/** Statuses of a run (SPEC §6). */
export type RunStatus = "RUNNING" | "WAITING_FOR_APPROVAL" | "COMPLETED" | "FAILED" | "CANCELLED";

/**
 * A call's status. The run report's statuses (SPEC §8) plus `running`, which
 * only a live view ever sees (a settled or suspended run has none).
 */
export type CallStatus = "pending" | "running" | "ok" | "error" | "denied" | "invalidated" | "not_dispatched";

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
  calls: Array<{ id: string; name: string; arguments: string; batchIndex: number }>;
}

/** Per-step metrics of SPEC §4, exactly the report's `metrics` shape (SPEC §8). */
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

/**
 * Everything needed to continue a step from one of its segments: the step's
 * preflighted calls and plan, what has settled so far, and the transcript up
 * to and including this step's assistant message.
 */
export interface StepProgress {
  stepIndex: number;
  calls: PreflightedCall[];
  plan: Plan;
  /** Index into `plan.segments` of the next segment to run. */
  nextSegment: number;
  completedWaves: number;
  /** Settled outcomes by batchIndex (JSON object keys are strings). */
  outcomes: Record<string, CallOutcome>;
  transcript: TranscriptEntry[];
}

/** Version of the persisted suspended state; bump it and keep a decoder for each past version. */
export const SUSPENDED_STATE_VERSION = 1;

/** What a waiting run persists (SPEC §4): enough to resume in any process. */
export interface SuspendedState extends StepProgress {
  schemaVersion: typeof SUSPENDED_STATE_VERSION;
  pending: PendingTurn;
}
