import "server-only";
import type { Db } from "@/db/client";
import { summarizeRuns } from "@/db/repositories/run-list-queries";
import { RUN_STATUSES } from "@/lib/runtime/run/run-types";
import { countOpenStreams } from "@/lib/server/streams/open-streams";
import { getMetrics } from "./metrics";

/**
 * The metrics as Prometheus text, with the gauges read at scrape time: runs
 * by status and the oldest wait from the database (the same for every
 * instance), streams open on this instance.
 */
export async function readMetrics(db: Db, now = Date.now()): Promise<{ contentType: string; text: string }> {
  const metrics = getMetrics();
  const { byStatus, oldestWait } = await summarizeRuns(db);
  for (const status of RUN_STATUSES) metrics.runsByStatus.set({ status }, byStatus[status] ?? 0);
  metrics.oldestWait.set(oldestWait ? Math.max(0, (now - oldestWait.getTime()) / 1000) : 0);
  metrics.sseStreams.set(countOpenStreams());
  return { contentType: metrics.registry.contentType, text: await metrics.registry.metrics() };
}
