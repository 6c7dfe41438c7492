/**
 * The one place this process schedules background work. Each task runs at
 * start, then again `intervalMs` after it last finished (never two runs of a
 * task at once, however slow it is), with a little jitter so instances
 * started together do not sweep in lockstep. A failing run is logged and the
 * task keeps its schedule.
 *
 * Not a job queue: what is due lives in the database rows themselves (a
 * run's lease, later an approval's expiry), and every instance sweeps them
 * with `FOR UPDATE SKIP LOCKED`, so no job needs storing, handing out or
 * retrying. docs/architecture.md says why no job-queue library is used.
 */
export interface Scheduler {
  every(name: string, intervalMs: number, task: () => Promise<void>): void;
  /** Stops every task and waits for the runs in progress. */
  stop(): Promise<void>;
}

export function createScheduler(log: (message: string, detail?: Record<string, unknown>) => void): Scheduler {
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const running = new Set<Promise<void>>();
  let isStopped = false;

  return {
    every(name, intervalMs, task) {
      const run = () => {
        if (isStopped) return;
        const current = task()
          .catch((error: unknown) =>
            log(`scheduled task "${name}" failed; it runs again on schedule`, {
              error: error instanceof Error ? error.message : String(error),
            }),
          )
          .finally(() => {
            running.delete(current);
            if (isStopped) return;
            const jitter = 0.9 + Math.random() * 0.2;
            const timer = setTimeout(() => {
              timers.delete(timer);
              run();
            }, intervalMs * jitter);
            timers.add(timer);
          });
        running.add(current);
      };
      run();
    },
    async stop() {
      isStopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all(running);
    },
  };
}
