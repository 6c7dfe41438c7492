import { driveRun } from "../run/run-loop";
import type { RunStatus } from "../run/run-types";
import { claimWaitingRun, holdingClaim, requireRun, resumeClaimedRun } from "./claim-waiting-run";
import type { CoordinatorDependencies } from "./coordinator-dependencies";
import { NotWaitingError } from "./decision-errors";

type CancelDependencies = CoordinatorDependencies & { abortInProcess?(runId: string): void };

/**
 * Cancels a run's current turn, or the whole run (docs/decisions.md#cancelling), answering once
 * the cancellation has taken effect; the run goes on in `settled`. A waiting
 * run is claimed like a decision and its pending calls are invalidated at
 * once; then the run continues with its next completion (`turn`) or ends
 * CANCELLED (`run`). A running run is asked to stop: `abortInProcess` aborts
 * its in-flight tools here, and its worker (wherever it runs) invalidates
 * what has not run at the next segment boundary; `settled` is then RUNNING.
 * A finished run refuses with `not_waiting`.
 */
export async function startCancelRun(
  runId: string,
  scope: "turn" | "run",
  dependencies: CancelDependencies,
): Promise<{ settled: Promise<RunStatus> }> {
  const { store } = dependencies;
  const run = await requireRun(store, runId);
  if (run.status === "RUNNING") {
    if (!(await store.requestCancel(runId, scope))) {
      throw new NotWaitingError(runId, (await store.getRun(runId))?.status ?? "gone");
    }
    dependencies.abortInProcess?.(runId);
    return { settled: Promise.resolve("RUNNING") };
  }
  const claim = await claimWaitingRun(run, "cancel", dependencies);
  const environment = await holdingClaim(store, runId, async () =>
    dependencies.createEnvironment(claim.run, claim.claimToken),
  );
  return { settled: driveRun(environment, resumeClaimedRun(claim, { kind: "cancel", scope })) };
}
