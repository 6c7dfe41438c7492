import type { ExecutionSettings } from "./execution-settings";
import type { RunService } from "./run-service";
import { createScheduler } from "./scheduler";

/** How many runs one sweep takes over at most; the next sweep takes the rest. */
const RUNS_PER_SWEEP = 20;

/**
 * Starts what every instance does besides answering requests: taking over
 * runs whose worker is gone. Returns the stop.
 */
export function startBackgroundWork(
  service: RunService,
  settings: ExecutionSettings,
  log: (message: string, detail?: Record<string, unknown>) => void,
): () => Promise<void> {
  const scheduler = createScheduler(log);
  scheduler.every("recover runs whose worker is gone", settings.sweepMs, async () => {
    const taken = await service.recoverExpiredRuns({ limit: RUNS_PER_SWEEP });
    for (const { runId, settled } of taken) {
      log("took over a run whose worker was gone", { runId, by: settings.instanceId });
      settled.catch((error: unknown) =>
        log("a recovered run stopped with an error", { runId, error: String(error) }),
      );
    }
  });
  return () => scheduler.stop();
}
