import { RuntimeError } from "../errors";
import type { BarrierAction } from "../run/execute-step";
import type { RunStart } from "../run/run-loop";
import type { RunRecord } from "../run/run-records";
import type { RunEventLog } from "../run/run-store";
import type { PendingTurn } from "../run/run-types";
import { decodeSuspendedState, type SuspendedState, UnreadableStateError } from "../run/suspended-state";
import type { CoordinatorDependencies } from "./coordinator-dependencies";
import { NotWaitingError, RunNotFoundError } from "./decision-errors";

/** A waiting run this worker now holds, with its decoded state. */
export interface ClaimedRun {
  run: RunRecord;
  claimToken: string;
  state: SuspendedState;
}

/** The run, or `not_found`. */
export async function requireRun(store: RunEventLog, runId: string): Promise<RunRecord> {
  const run = await store.getRun(runId);
  if (!run) throw new RunNotFoundError(runId);
  return run;
}

/**
 * docs/decisions.md#what-happens-to-a-decision-in-order steps 1–5, shared by decisions and
 * cancellations: pre-claim decode (unreadable → `UnreadableStateError`, nothing claimed); the atomic
 * WAITING_FOR_APPROVAL → RUNNING claim (lost → `not_waiting`, re-signalling the pending turn if the
 * run waits again); post-claim decode of the row won (unreadable → the run is settled FAILED with its
 * state kept, and the error is thrown). The store announces the claim (`run_claimed`) in the same
 * write.
 */
export async function claimWaitingRun(
  waiting: RunRecord,
  purpose: "decision" | "cancel" | "expiry",
  dependencies: CoordinatorDependencies,
  options: { isDecoded?: boolean } = {},
): Promise<ClaimedRun> {
  const { store } = dependencies;
  const runId = waiting.id;
  if (!options.isDecoded) decodeWaitingState(waiting);

  const claimToken = dependencies.createClaimToken();
  const run = await store.claimWaitingRun(runId, claimToken, dependencies.leaseMs, purpose);
  if (!run) {
    const now = await store.getRun(runId);
    throw new NotWaitingError(runId, now?.status ?? "gone", now ? readPendingTurn(now) : null);
  }
  let state: SuspendedState;
  try {
    state = decodeSuspendedState(runId, run.state);
  } catch (error) {
    if (UnreadableStateError.isInstance(error)) {
      await store.forceFail(runId, { code: error.code, message: error.message });
    }
    throw error;
  }
  return { run, claimToken, state };
}

/**
 * Pre-claim: a run that is not waiting is `not_waiting`; one whose stored
 * state cannot be decoded is `unreadable_state`, with nothing claimed.
 */
export function decodeWaitingState(waiting: RunRecord): SuspendedState {
  if (waiting.status !== "WAITING_FOR_APPROVAL") throw new NotWaitingError(waiting.id, waiting.status);
  return decodeSuspendedState(waiting.id, waiting.state);
}

/**
 * Runs `work` for a worker that holds a claim. An unexpected failure (not a
 * `RuntimeError`, which the caller has already handled) settles the run
 * FAILED: a run is never left RUNNING with no worker (docs/decisions.md#what-happens-to-a-decision-in-order).
 */
export async function holdingClaim<T>(store: RunEventLog, runId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!RuntimeError.isInstance(error)) {
      // The error's own message may carry SQL: it is thrown on to be logged, and the run says only what happened.
      await store.forceFail(runId, {
        code: "internal_error",
        message: "The run failed while a decision was being applied; the server log has the details.",
      });
    }
    throw error;
  }
}

/** Where the run loop picks a claimed run up: its waiting step, with what to do at the barrier. */
export function resumeClaimedRun(claim: ClaimedRun, barrierAction: BarrierAction): RunStart {
  return {
    transcript: claim.state.transcript,
    modelCalls: claim.run.modelCalls,
    nextStepIndex: claim.state.stepIndex + 1,
    progress: claim.state,
    barrierAction,
  };
}

/** The pending turn of a run that is waiting now, for refusals that re-signal it. */
export function readPendingTurn(run: RunRecord): PendingTurn | null {
  if (run.status !== "WAITING_FOR_APPROVAL") return null;
  try {
    return decodeSuspendedState(run.id, run.state).pending;
  } catch {
    return null;
  }
}
