import { runSteps } from "../run/run-loop";
import type { RunStatus } from "../run/run-types";
import { decodeSuspendedState } from "../run/suspended-state";
import type { CoordinatorDependencies } from "./coordinator-dependencies";
import { NotWaitingError, RunNotFoundError } from "./decision-errors";

/** The run's status once the cancellation was applied (RUNNING: its worker will stop at the next boundary). */
export interface CancelResult {
  status: RunStatus;
}

/**
 * Cancels a run's current turn, or the whole run (SPEC §4). A waiting run is
 * claimed like a decision and its pending calls are invalidated at once; then
 * the run continues with its next completion (`turn`) or ends CANCELLED
 * (`run`). A running run is asked to stop: `abortInProcess` aborts its
 * in-flight tools here, and its worker invalidates what has not run at the
 * next segment boundary. A finished run refuses with `not_waiting`.
 */
export async function cancelRun(
  runId: string,
  scope: "turn" | "run",
  dependencies: CoordinatorDependencies & { abortInProcess?(runId: string): void },
): Promise<CancelResult> {
  const { store } = dependencies;
  const run = await store.getRun(runId);
  if (!run) throw new RunNotFoundError(runId);
  if (run.status === "RUNNING") {
    if (!(await store.requestCancel(runId, scope)))
      throw new NotWaitingError(runId, (await store.getRun(runId))?.status ?? "gone");
    dependencies.abortInProcess?.(runId);
    return { status: "RUNNING" };
  }
  if (run.status !== "WAITING_FOR_APPROVAL") throw new NotWaitingError(runId, run.status);

  decodeSuspendedState(runId, run.state);
  const claimToken = dependencies.createClaimToken();
  const claimed = await store.claimWaitingRun(runId, claimToken, dependencies.leaseMs);
  if (!claimed) throw new NotWaitingError(runId, (await store.getRun(runId))?.status ?? "gone");
  let state: ReturnType<typeof decodeSuspendedState>;
  try {
    state = decodeSuspendedState(runId, claimed.state);
  } catch (error) {
    await store.forceFail(runId, { code: "unreadable_state", message: String(error) });
    throw error;
  }
  const status = await runSteps(dependencies.createEnvironment(claimed, claimToken), {
    transcript: state.transcript,
    modelCalls: claimed.modelCalls,
    nextStepIndex: state.stepIndex + 1,
    progress: state,
    barrierAction: { kind: "cancel", scope },
  });
  return { status };
}
