import "server-only";
import type { Db } from "@/db/client";
import { listEventsAfter } from "@/db/repositories/run-queries";
import { foldRunEvents, type RunEventRecord, type RunView } from "@/lib/run-view/run-view";

/** A run's events after `afterSeq`, in the shape the stream sends them. */
export async function readRunEvents(db: Db, runId: string, afterSeq: number): Promise<RunEventRecord[]> {
  const rows = await listEventsAfter(db, runId, afterSeq);
  return rows.map((row) => ({
    seq: row.seq,
    type: row.type,
    payload: row.payload,
    at: row.createdAt.toISOString(),
  }));
}

/** The live view of a run as of its last committed event, or null when there is no such run. */
export async function loadRunView(db: Db, runId: string): Promise<RunView | null> {
  const events = await readRunEvents(db, runId, 0);
  // Every run starts with run_started in the transaction that creates it.
  if (events.length === 0) return null;
  return foldRunEvents(runId, events);
}
