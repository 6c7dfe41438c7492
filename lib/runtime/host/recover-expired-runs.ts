import { RuntimeError } from "../errors";
import { recoverRun } from "../run/recover-run";
import type { RunEnvironment } from "../run/run-environment";
import type { RunRecord } from "../run/run-records";
import type { RunStore } from "../run/run-store";
import type { RunStatus } from "../run/run-types";
import type { Scenario } from "../scenario/scenario-schema";
import { inSpan, runTraceContext } from "../tracing";
import { initialTranscriptOf } from "./stored-scenarios";

export interface RunRecoveryDependencies {
  store: RunStore;
  leaseMs: number;
  /** This instance's name in `run_recovered` events. */
  instanceId: string;
  scenarioOf(run: RunRecord): Scenario;
  createEnvironment(run: RunRecord, claimToken: string): Promise<RunEnvironment>;
  /** Passes a run's `settled` through, setting the timers of the wait it is left in. */
  watchDeadline(runId: string, settled: Promise<RunStatus>): Promise<RunStatus>;
  log?(message: string, detail?: Record<string, unknown>): void;
}

/**
 * Takes over RUNNING runs whose worker is gone (lease run out), at most
 * `limit`, or just `runId`, and goes on with each from what is stored. The
 * sweep every instance runs; other instances sweeping at once never take
 * the same run. Resolves with the runs taken; each goes on in `settled`.
 */
export async function recoverExpiredRuns(
  dependencies: RunRecoveryDependencies,
  sweep: { limit?: number; runId?: string } = {},
): Promise<Array<{ runId: string; settled: Promise<RunStatus> }>> {
  const claimed = await dependencies.store.claimExpiredRuns({
    leaseMs: dependencies.leaseMs,
    limit: sweep.limit ?? 20,
    runId: sweep.runId,
  });
  return claimed.map(({ run, claimToken }) => ({
    runId: run.id,
    settled: dependencies.watchDeadline(run.id, recoverClaimed(dependencies, run, claimToken)),
  }));
}

async function recoverClaimed(
  dependencies: RunRecoveryDependencies,
  run: RunRecord,
  claimToken: string,
): Promise<RunStatus> {
  let environment: RunEnvironment;
  let scenario: Scenario;
  try {
    scenario = dependencies.scenarioOf(run);
    environment = await dependencies.createEnvironment(run, claimToken);
  } catch (error) {
    const runError = RuntimeError.isInstance(error)
      ? { code: error.code, message: error.message }
      : {
          code: "internal_error",
          message: "The run could not be recovered; the server log has the details.",
        };
    dependencies.log?.("a run could not be recovered", { runId: run.id, ...runError });
    await dependencies.store.forceFail(run.id, runError);
    return "FAILED";
  }
  const recovering = environment;
  const instanceId = dependencies.instanceId;
  return inSpan(
    "recovery",
    { "tool_playground.run.id": run.id, "tool_playground.instance": instanceId },
    () => recoverRun(recovering, run, { by: instanceId, initialTranscript: initialTranscriptOf(scenario) }),
    runTraceContext(run.id),
  );
}
