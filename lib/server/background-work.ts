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
 * runs whose worker is gone. Returns the stop, which ends the sweeps and
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
  scheduler.every("recover runs whose worker is gone", settings.sweepMs, async () => {
    const taken = await service.recoverExpiredRuns({ limit: RUNS_PER_SWEEP });
    for (const { runId, settled } of taken) {
      log("took over a run whose worker was gone", { runId, by: settings.instanceId });
      const tracked = settled.catch((error: unknown) => {
        log("a recovered run stopped with an error", { runId, error: String(error) });
        return undefined;
      });
      driving.add(tracked);
      void tracked.finally(() => driving.delete(tracked));
    }
  });
  return async () => {
    await scheduler.stop();
    await Promise.race([Promise.all(driving), new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS))]);
  };
}
