import { isTerminalStatus } from "../run/is-terminal-status";
import { driveRun } from "../run/run-loop";
import type { RunRecord } from "../run/run-records";
import type { RunStatus } from "../run/run-types";
import {
  type ClaimedRun,
  claimWaitingRun,
  holdingClaim,
  requireRun,
  resumeClaimedRun,
} from "./claim-waiting-run";
import type { CoordinatorDependencies } from "./coordinator-dependencies";
import { NotWaitingError, RunEndedError } from "./decision-errors";

type CancelDependencies = CoordinatorDependencies & { abortInProcess?(runId: string): void };

/**
 * Cancels a run's current turn, or the whole run (docs/decisions.md#cancelling), answering once
 * the cancellation has taken effect; the run goes on in `settled`. A waiting
 * run is claimed like a decision and its pending calls are invalidated at
 * once; then the run continues with its next completion (`turn`) or ends
 * CANCELLED (`run`). A running run is asked to stop: `abortInProcess` aborts
 * its in-flight tools here, and its worker (wherever it runs) invalidates
 * what has not run at the next segment boundary; `settled` is then RUNNING.
 * A run that has ended refuses with `not_waiting`, saying it has ended.
 */
export async function startCancelRun(
  runId: string,
  scope: "turn" | "run",
  dependencies: CancelDependencies,
): Promise<{ settled: Promise<RunStatus> }> {
  const { store } = dependencies;
  // The run may change between reading it and acting on it: an approval claims a waiting run, a
  // worker suspends a running one at a barrier. Either way it can still be cancelled, so a cancel
  // that loses such a race reads the run again: each lost race is a step the run took, and it takes
  // finitely many.
  for (;;) {
    const run = await requireRun(store, runId);
    if (isTerminalStatus(run.status)) throw new RunEndedError(runId, run.status);
    if (run.status === "RUNNING") {
      if (!(await store.requestCancel(runId, scope))) continue;
      dependencies.abortInProcess?.(runId);
      return { settled: Promise.resolve("RUNNING") };
    }
    const claim = await claimUnlessTaken(run, dependencies);
    if (!claim) continue;
    const environment = await holdingClaim(store, runId, async () =>
      dependencies.createEnvironment(claim.run, claim.claimToken),
    );
    return { settled: driveRun(environment, resumeClaimedRun(claim, { kind: "cancel", scope })) };
  }
}

/** Claims the waiting run for the cancel; null when another (a decision, an expiry) took it first. */
async function claimUnlessTaken(
  run: RunRecord,
  dependencies: CancelDependencies,
): Promise<ClaimedRun | null> {
  try {
    return await claimWaitingRun(run, "cancel", dependencies);
  } catch (error) {
    if (NotWaitingError.isInstance(error)) return null;
    throw error;
  }
}
