import type { RunStatus } from "@/lib/runtime";
import type { ExecutionSettings } from "./execution-settings";
import type { RunService } from "./run-service";
import { createScheduler } from "./scheduler";

/** How many runs one sweep takes over at most; the next sweep takes the rest. */
const RUNS_PER_SWEEP = 20;

/** How long a stopping process waits for the runs it took over to reach a pause or an end. */
const STOP_GRACE_MS = 10_000;

/**
 * Starts what every instance does besides answering requests: taking over
 * runs whose worker is gone, and expiring waits nobody decided in time (the
 * instance that left a wait also sets a timer for it; this is the backstop). Returns the stop, which ends the sweeps and
 * gives the runs this process took over a grace period to reach a pause or
 * an end (any still going are taken over by another instance once their
 * lease runs out).
 */
export function startBackgroundWork(
  service: RunService,
  settings: ExecutionSettings,
  log: (message: string, detail?: Record<string, unknown>) => void,
): () => Promise<void> {
  const scheduler = createScheduler(log);
  const driving = new Set<Promise<RunStatus | undefined>>();
  // Runs this process went on with: a stopping process gives them a grace period.
  const track = (runs: Array<{ runId: string; settled: Promise<RunStatus> }>, what: string) => {
    for (const { runId, settled } of runs) {
      log(what, { runId, by: settings.instanceId });
      const tracked = settled.catch((error: unknown) => {
        log("a run this instance went on with stopped with an error", { runId, error: String(error) });
        return undefined;
      });
      driving.add(tracked);
      void tracked.finally(() => driving.delete(tracked));
    }
  };
  scheduler.every("recover runs whose worker is gone", settings.sweepMs, async () => {
    track(
      await service.recoverExpiredRuns({ limit: RUNS_PER_SWEEP }),
      "took over a run whose worker was gone",
    );
  });
  scheduler.every("expire waits past their deadline", settings.sweepMs, async () => {
    track(await service.sweepApprovalDeadlines({ limit: RUNS_PER_SWEEP }), "a wait for a decision expired");
  });
  return async () => {
    await scheduler.stop();
    await Promise.race([Promise.all(driving), new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS))]);
  };
}
