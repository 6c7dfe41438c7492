import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { RUN_EVENTS_CHANNEL } from "@/db/repositories/append-event";
import { runEvents, runs } from "@/db/schema";
import { RUN_EVENT_VERSIONS } from "@/lib/runtime";

/**
 * Gives a stored run a long history for stream tests: `count` progress
 * events of about `bytesPerEvent` each after its last event (written
 * straight to the table: a scripted run would take minutes to make megabytes),
 * announced as an append announces them.
 * Returns the last seq.
 */
export async function appendLongHistory(
  db: Db,
  runId: string,
  { count, bytesPerEvent }: { count: number; bytesPerEvent: number },
): Promise<number> {
  const [run] = await db.select({ lastSeq: runs.lastSeq }).from(runs).where(eq(runs.id, runId));
  if (!run) throw new Error(`no run ${runId}`);
  const message = "x".repeat(bytesPerEvent);
  const rowsPerInsert = Math.max(1, Math.floor((4 * 1024 * 1024) / bytesPerEvent));
  for (let written = 0; written < count; written += rowsPerInsert) {
    const rows = Array.from({ length: Math.min(rowsPerInsert, count - written) }, (_, index) => ({
      runId,
      seq: run.lastSeq + written + index + 1,
      type: "call_progress",
      version: RUN_EVENT_VERSIONS.call_progress,
      payload: { stepIndex: 0, batchIndex: 0, progress: written + index + 1, total: count, message },
    }));
    await db.insert(runEvents).values(rows);
  }
  const lastSeq = run.lastSeq + count;
  await db
    .update(runs)
    .set({ lastSeq: sql`${lastSeq}` })
    .where(eq(runs.id, runId));
  // As an append does: the streams following the run hear of it.
  await db.execute(sql`select pg_notify(${RUN_EVENTS_CHANNEL}, ${`${runId}:${lastSeq}`})`);
  return lastSeq;
}
