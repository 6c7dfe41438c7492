import { and, asc, eq, gt, sql } from "drizzle-orm";
import {
  decodeRunEvent,
  LostClaimError,
  RUN_EVENT_VERSIONS,
  type RunEvent,
  type StoredRunEvent,
} from "@/lib/runtime";
import type { Db } from "../client";
import { runEvents, runs } from "../schema";

/** A transaction handle of either driver (same type as `Db` for queries). */
export type Transaction = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type Executor = Db | Transaction;

/** The NOTIFY channel that announces committed events as `<runId>:<seq>`. */
export const RUN_EVENTS_CHANNEL = "run_events";

/**
 * Appends an event inside the caller's transaction, at its type's current
 * version. The seq comes from an increment of `runs.last_seq` in the same
 * transaction: the row lock serialises appends per run and a rollback takes
 * its number back, so seqs are gap-free. The NOTIFY is delivered only when
 * the transaction commits.
 *
 * `fence` is the claim token of the worker appending: the same statement
 * that takes the seq checks that it still holds the run, and throws
 * `LostClaimError` otherwise, so the caller's transaction writes nothing.
 * `null` appends whoever holds the run (for changes that were already fenced,
 * or that may happen to any run).
 */
export async function appendEvent(
  tx: Executor,
  runId: string,
  event: RunEvent,
  fence: string | null,
): Promise<number> {
  const [row] = await tx
    .update(runs)
    .set({ lastSeq: sql`${runs.lastSeq} + 1`, updatedAt: new Date() })
    .where(
      fence === null
        ? eq(runs.id, runId)
        : and(eq(runs.id, runId), eq(runs.claimToken, fence), eq(runs.status, "RUNNING")),
    )
    .returning({ seq: runs.lastSeq });
  if (!row) {
    if (fence !== null) throw new LostClaimError(runId);
    throw new Error(`cannot append ${event.type}: no run ${runId}`);
  }
  await tx.insert(runEvents).values({
    runId,
    seq: row.seq,
    type: event.type,
    version: RUN_EVENT_VERSIONS[event.type],
    payload: event.payload,
  });
  await tx.execute(sql`select pg_notify(${RUN_EVENTS_CHANNEL}, ${`${runId}:${row.seq}`})`);
  return row.seq;
}

/** A run's events after `afterSeq`, decoded from whichever version they were written at. */
export async function readEvents(db: Executor, runId: string, afterSeq: number): Promise<StoredRunEvent[]> {
  const rows = await db
    .select()
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), gt(runEvents.seq, afterSeq)))
    .orderBy(asc(runEvents.seq));
  return rows.map((row) =>
    decodeRunEvent(runId, {
      seq: row.seq,
      type: row.type,
      version: row.version,
      payload: row.payload,
      at: row.createdAt.toISOString(),
    }),
  );
}
