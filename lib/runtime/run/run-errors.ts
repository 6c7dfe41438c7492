import { RuntimeError } from "../errors";
import type { PlanProblem } from "../types";

/** The worker no longer holds the run's claim: another worker or a decision took it over. */
export class LostClaimError extends RuntimeError {
  static override readonly brand: string = "LostClaimError";
  declare readonly code: "lost_claim";
  readonly runId: string;
  constructor(runId: string) {
    super("lost_claim", `Run ${runId} is no longer held by this worker.`);
    this.runId = runId;
  }
}

/**
 * The model kept sending batches that had to be repaired (`maxRepairAttempts`,
 * docs/planning-rules.md#limits).
 */
export class RepairExhaustedError extends RuntimeError {
  static override readonly brand: string = "RepairExhaustedError";
  declare readonly code: "repair_exhausted";
  readonly problems: PlanProblem[];
  constructor(attempts: number, problems: PlanProblem[]) {
    super(
      "repair_exhausted",
      `The model's batch still needed repair after ${attempts} repair attempt${attempts === 1 ? "" : "s"}: ${problems
        .map((problem) => problem.message)
        .join("; ")}`,
    );
    this.problems = problems;
  }
}

/**
 * The store could not be reached (the database is down or restarting): what
 * was asked of it may or may not have been done. Stores throw it for
 * failures that pass, never for a refusal. A worker that meets it stops
 * driving the run and lets its lease lapse: recovery goes on from what is
 * stored, under the rules of a crash. A surface answers 503
 * `database_unavailable`.
 */
export class StoreUnavailableError extends RuntimeError {
  static override readonly brand: string = "StoreUnavailableError";
  declare readonly code: "database_unavailable";
  constructor(message = "The database is unreachable; try again shortly.", options?: { cause?: unknown }) {
    super("database_unavailable", message, options);
  }
}

/**
 * A run may not end while a call it started has no stored outcome: the store
 * refuses to finish it (`RunStore.finishRun`), writing nothing.
 */
export class UnsettledCallsError extends RuntimeError {
  static override readonly brand: string = "UnsettledCallsError";
  declare readonly code: "unsettled_calls";
  readonly runId: string;
  /** The calls started and never settled, as `stepIndex:batchIndex`. */
  readonly calls: string[];
  constructor(runId: string, calls: string[]) {
    super(
      "unsettled_calls",
      `Run ${runId} cannot end: call${calls.length === 1 ? "" : "s"} ${calls.join(", ")} started and ha${calls.length === 1 ? "s" : "ve"} no stored outcome.`,
    );
    this.runId = runId;
    this.calls = calls;
  }
}

/**
 * Whether an error means the worker must stop driving the run and leave it
 * to whoever holds it next: its claim is gone, or something it had to store
 * could not be (recovery then goes on from what is stored).
 */
export function stopsTheWorker(error: unknown): boolean {
  return (
    LostClaimError.isInstance(error) || OutcomeNotStoredError.isInstance(error) || isStoreUnavailable(error)
  );
}

/** A {@link StoreUnavailableError}, itself or as the cause of what was thrown. */
export function isStoreUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (StoreUnavailableError.isInstance(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * A call ran but its outcome could not be stored. Its worker stops and lets
 * its lease lapse: recovery settles the call as a crash would have left it
 * (a non-idempotent write `interrupted`, never sent again; a read or an
 * idempotent write run again). Never the run's error.
 */
export class OutcomeNotStoredError extends RuntimeError {
  static override readonly brand: string = "OutcomeNotStoredError";
  declare readonly code: "outcome_not_stored";
  readonly runId: string;
  readonly batchIndex: number;
  constructor(runId: string, call: { name: string; batchIndex: number }, cause: unknown) {
    super(
      "outcome_not_stored",
      // The cause (a driver message, often with SQL) stays in `cause` for the server log.
      `Tool ${call.name} (batchIndex ${call.batchIndex}) ran, but its outcome could not be stored; the worker stops and recovery goes on from what is stored.`,
      { cause },
    );
    this.runId = runId;
    this.batchIndex = call.batchIndex;
  }
}
