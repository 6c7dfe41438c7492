import "server-only";
import type { Db } from "@/db/client";
import { countFinishedRuns, countLiveRuns } from "@/db/repositories/run-list-queries";
import { RUN_STATUSES } from "@/lib/runtime/run/run-types";
import { getDatabase } from "@/lib/server/database";
import { logWarning } from "@/lib/server/ops/logger";
import { processPart } from "@/lib/server/process-parts";
import { getRunService } from "@/lib/server/server-context";
import { countOpenStreams } from "@/lib/server/streams/open-streams";
import { getMetrics } from "./metrics";

/**
 * How long the finished runs' counts are served before they are read again. Reading them reads
 * every finished run (67 ms a scrape at 600,000 runs, growing with the table:
 * docs/performance.md#a-year-of-events); running and waiting runs are counted at every scrape.
 */
export const FINISHED_COUNTS_KEPT_MS = 60_000;

interface FinishedCounts {
  counts: Record<string, number> | null;
  readAt: number;
  reading: Promise<Record<string, number>> | null;
}

/**
 * Per database handle (tests open many, an instance one), and per process: the metrics route and the
 * loopback listener are bundled apart, and each copy of this module must read the same counts.
 */
function finishedByDatabase(): WeakMap<Db, FinishedCounts> {
  return processPart("finished-run-counts", () => new WeakMap<Db, FinishedCounts>());
}

/**
 * The finished runs' counts: read on the first scrape, then kept up to a minute; a later scrape
 * is answered with the kept counts while fresh ones are read beside it.
 */
async function finishedCounts(db: Db, now: number): Promise<Record<string, number>> {
  const kept = finishedByDatabase();
  const entry: FinishedCounts = kept.get(db) ?? { counts: null, readAt: 0, reading: null };
  kept.set(db, entry);
  if (entry.counts && now - entry.readAt < FINISHED_COUNTS_KEPT_MS) return entry.counts;
  if (!entry.reading) {
    entry.reading = countFinishedRuns(db)
      .then((counts) => {
        entry.counts = counts;
        entry.readAt = now;
        return counts;
      })
      .finally(() => {
        entry.reading = null;
      });
    // Beside kept counts, a failed read keeps them, and the next scrape tries again.
    if (entry.counts) {
      entry.reading.catch((error: unknown) =>
        logWarning("metrics: could not count the finished runs", { error: String(error) }),
      );
    }
  }
  return entry.counts ?? entry.reading;
}

/**
 * The metrics as Prometheus text, with the gauges read at scrape time: running and waiting runs and
 * the oldest wait from the database (the same for every instance), finished runs as of the last
 * minute, streams open on this instance and, from `runsDriven`, the runs it is driving.
 */
export async function readMetrics(
  db: Db,
  { now = Date.now(), runsDriven = () => 0 }: { now?: number; runsDriven?: () => number } = {},
): Promise<{ contentType: string; text: string }> {
  const metrics = getMetrics();
  const [{ byStatus, oldestWait }, finished] = await Promise.all([
    countLiveRuns(db),
    finishedCounts(db, now),
  ]);
  for (const status of RUN_STATUSES) {
    metrics.runsByStatus.set({ status }, byStatus[status] ?? finished[status] ?? 0);
  }
  metrics.oldestWait.set(oldestWait ? Math.max(0, (now - oldestWait.getTime()) / 1000) : 0);
  metrics.sseStreams.set(countOpenStreams());
  metrics.runsDriven.set(runsDriven());
  return { contentType: metrics.registry.contentType, text: await metrics.registry.metrics() };
}

/** This process's metrics: on its database, with the runs its run service drives (the route and the loopback listener). */
export async function readProcessMetrics(): Promise<{ contentType: string; text: string }> {
  const [{ db }, service] = await Promise.all([getDatabase(), getRunService()]);
  return readMetrics(db, { runsDriven: service.runsDrivenHere });
}
