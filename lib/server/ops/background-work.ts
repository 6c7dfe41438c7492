import type { RunStatus } from "@/lib/runtime";
import type { ExecutionSettings } from "@/lib/server/config/execution-settings";
import type { Notifier } from "@/lib/server/notifications/notifier";
import type { RunService } from "@/lib/server/runs/run-service";
import { createScheduler } from "./scheduler";

/** How many runs one sweep takes over at most; the next sweep takes the rest. */
const RUNS_PER_SWEEP = 20;

/** How often an instance sends what the notification outbox holds: also how long waits gather into one message. */
const NOTIFICATION_SWEEP_MS = 5_000;

/** How often an instance makes sure the event log's partitions stay months ahead (it also does at start). */
const EVENT_PARTITIONS_SWEEP_MS = 60 * 60_000;

/** How long a stopping process waits for the runs it took over to reach a pause or an end. */
const STOP_GRACE_MS = 10_000;

/**
 * Starts what every instance does besides answering requests: taking over
 * runs whose worker is gone, expiring waits nobody decided in time (the
 * instance that left a wait also sets a timer for it; this is the backstop),
 * and keeping the event log's monthly partitions ahead of the clock. Returns the stop, which ends the sweeps and
 * gives the runs this process took over a grace period to reach a pause or
 * an end (any still going are taken over by another instance once their
 * lease runs out).
 */
export function startBackgroundWork(
  service: RunService,
  settings: ExecutionSettings,
  log: (message: string, detail?: Record<string, unknown>) => void,
  notifier: Notifier | null = null,
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
  scheduler.every("make the event log's months ahead", EVENT_PARTITIONS_SWEEP_MS, async () => {
    const made = await service.ensureEventPartitions();
    if (made.length > 0) log("made event partitions ahead", { partitions: made });
  });
  if (notifier) {
    // docs/notifications.md#how-delivery-works: every instance sweeps; the outbox hands each line to one.
    scheduler.every("send notifications", NOTIFICATION_SWEEP_MS, () => notifier.sweep());
  }
  return async () => {
    await scheduler.stop();
    notifier?.close();
    await Promise.race([Promise.all(driving), new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS))]);
  };
}
