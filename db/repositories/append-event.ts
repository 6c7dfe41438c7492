import { and, asc, eq, gt, type SQL, sql } from "drizzle-orm";
import {
  decodeRunEvent,
  LostClaimError,
  RUN_EVENT_VERSIONS,
  type RunEvent,
  type StoredRunEvent,
} from "@/lib/runtime";
import type { Db } from "../client";
import { runEvents } from "../schema";
import { toStorableJson } from "../storable-columns";

/** A transaction handle of either driver (same type as `Db` for queries). */
export type Transaction = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type Executor = Db | Transaction;

/** The NOTIFY channel that announces committed events as `<runId>:<seq>`. */
export const RUN_EVENTS_CHANNEL = "run_events";

/** `jsonb` text for a parameter, made storable (no NUL, no lone surrogate), or SQL NULL. */
export const jsonParameter = (value: unknown) =>
  value === null || value === undefined ? null : toStorableJson(JSON.stringify(value));

/** The rows of a raw statement, whichever driver ran it (postgres-js: an array; PGlite: `{ rows }`). */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

export interface AppendOptions {
  /**
   * The claim token of the worker appending: the statement that takes the seq
   * checks that it still holds the run, and appends nothing otherwise
   * (`LostClaimError`). `null` appends whoever holds the run, for changes that
   * may happen to any run.
   */
  fence: string | null;
  /** More columns of `runs` to set in the same UPDATE that takes the seq (say, the status). */
  alsoSet?: SQL;
  /**
   * Further data-modifying CTEs that run in the same statement, each able to
   * read `inserted.seq` (say, stamping a tool call with it). Each starts with
   * its name: `stamped as (update … from inserted where …)`.
   */
  alsoDo?: SQL[];
}

/**
 * Appends an event at its type's current version, in one statement that also
 * does whatever `options` add: it takes the run's next seq by incrementing
 * `runs.last_seq` (the row lock serialises appends per run, and a rollback
 * takes the number back, so seqs are gap-free), inserts the event, and
 * NOTIFYs `run_events` with `<runId>:<seq>`, delivered on commit. One round
 * trip per event, whether alone (its own transaction) or inside the caller's.
 */
export async function appendEvent(
  executor: Executor,
  runId: string,
  event: RunEvent,
  options: AppendOptions,
): Promise<number> {
  const fenced =
    options.fence === null ? sql`` : sql` and claim_token = ${options.fence} and status = 'RUNNING'`;
  const alsoDo = (options.alsoDo ?? []).map((cte) => sql`, ${cte}`);
  const result = await executor.execute(sql`
    with bumped as (
      update runs set last_seq = last_seq + 1, updated_at = now()${options.alsoSet ? sql`, ${options.alsoSet}` : sql``}
      where id = ${runId}::uuid${fenced}
      returning last_seq
    ), inserted as (
      insert into run_events (run_id, seq, type, version, payload)
      select ${runId}::uuid, last_seq, ${event.type}, ${RUN_EVENT_VERSIONS[event.type]},
             ${jsonParameter(event.payload ?? {})}::jsonb
      from bumped
      returning seq
    )${sql.join(alsoDo, sql``)}
    select seq, pg_notify(${RUN_EVENTS_CHANNEL}, ${runId}::text || ':' || seq::text) as notified
    from inserted`);
  const [row] = rowsOf<{ seq: number }>(result);
  if (!row) {
    if (options.fence !== null) throw new LostClaimError(runId);
    throw new Error(`cannot append ${event.type}: no run ${runId}`);
  }
  return Number(row.seq);
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
