import { and, asc, desc, eq, gt, inArray, type SQL, sql } from "drizzle-orm";
import {
  decodeRunEvent,
  LostClaimError,
  RUN_EVENT_VERSIONS,
  type RunEvent,
  type RunEventType,
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

/** A write this process committed through the database itself (not inside a transaction). */
export interface CommittedEvents {
  runId: string;
  /** The highest seq it took (the NOTIFY's payload says the same). */
  lastSeq: number;
  /**
   * The events as stored (their seqs, the commit's time, the payloads as the database keeps them),
   * decoded when first asked: a listener with nobody to hand them to asks for nothing.
   */
  events(): readonly StoredRunEvent[];
}

/**
 * Told of each write this process makes through the database itself (not inside a transaction)
 * as it is sent, for its run; returns what is told as it ends: its events when it committed some,
 * else null (it appended nothing, or failed). Called exactly once, whatever the outcome.
 */
export type DirectWriteObserver = (runId: string) => (committed: CommittedEvents | null) => void;

const directWriteObservers = new WeakMap<Executor, DirectWriteObserver>();

/**
 * Tells `observer` of the writes this process makes through `db` outside a transaction: as each
 * is sent, and, with its events, as it returns. This process's own streams need neither wait for
 * Postgres to relay the NOTIFY back nor read the events again. Other processes, and writes made
 * inside a transaction (told at their commit), still hear the NOTIFY (`<runId>:<last seq>`), which
 * can arrive before or after the write returns: while a write of a run is on its way, a listener
 * cannot tell whether a NOTIFY of that run is the write's own.
 */
export function observeDirectWrites(db: Db, observer: DirectWriteObserver): void {
  directWriteObservers.set(db, observer);
}

/** Runs an observer's hook, whose failure must never fail a write (committed or not, whatever the hook does). */
function safely<T>(hook: () => T): T | undefined {
  try {
    return hook();
  } catch {
    return undefined; // the NOTIFY tells listeners again
  }
}

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
   * The claim token of the worker appending: the statement that takes the
   * seqs checks that it still holds the run, and appends nothing otherwise
   * (`LostClaimError`). `null` appends whoever holds the run, for changes that
   * may happen to any run. `claimUnchangedSince` appends only to a waiting
   * run still at that version (its row not changed since: `xmin`) that no
   * other claim is taking, and `alsoSet` claims it (`LostClaimError` otherwise).
   */
  fence: string | null | { claimUnchangedSince: string };
  /** Append nothing while a cancel is pending on the run (`{ cancelPending }` says which). */
  unlessCancelPending?: boolean;
  /** A further condition on the run (its row is `runs`): nothing is appended unless it holds. */
  onlyIf?: SQL;
  /** More columns of `runs` to set in the same UPDATE that takes the seqs (say, the status). */
  alsoSet?: SQL;
  /**
   * Further data-modifying CTEs that run in the same statement, each able to
   * read `inserted (seq, type, payload)` (say, stamping tool calls with their
   * seqs). Each starts with its name: `stamped as (update … from inserted …)`.
   */
  alsoDo?: SQL[];
}

export type AppendResult =
  | { seqs: number[]; cancelPending: "turn" | "run" | null; allowedTools: unknown }
  | { seqs: null; cancelPending: "turn" | "run"; allowedTools?: undefined };

/**
 * Appends events, each at its type's current version, in one statement that
 * also does whatever `options` add: it takes the run's next seqs by raising
 * `runs.last_seq` (the row lock serialises appends per run, and a rollback
 * takes the numbers back, so seqs are gap-free), inserts the events, and
 * NOTIFYs `run_events` once with `<runId>:<last seq>`, delivered on commit.
 * One round trip however many events, alone or inside the caller's
 * transaction. Also says whether a cancel is pending on the run.
 */
export async function appendEvents(
  executor: Executor,
  runId: string,
  events: readonly RunEvent[],
  options: AppendOptions,
): Promise<AppendResult> {
  // Only for the database itself: a transaction's handle is another object, and is told at commit.
  const observer = directWriteObservers.get(executor);
  if (!observer) return (await appendStatement(executor, runId, events, options)).appended;
  const ended = safely(() => observer(runId));
  let committed: CommittedEvents | null = null;
  try {
    const outcome = await appendStatement(executor, runId, events, options);
    committed = outcome.committed;
    return outcome.appended;
  } finally {
    safely(() => ended?.(committed));
  }
}

/** {@link appendEvents}'s statement: what it appended, and, when it committed events, those events. */
async function appendStatement(
  executor: Executor,
  runId: string,
  events: readonly RunEvent[],
  options: AppendOptions,
): Promise<{ appended: AppendResult; committed: CommittedEvents | null }> {
  const fenced =
    options.fence === null
      ? sql``
      : typeof options.fence === "string"
        ? sql` and claim_token = ${options.fence} and status = 'RUNNING'`
        : sql` and status = 'WAITING_FOR_APPROVAL' and xmin::text = ${options.fence.claimUnchangedSince}
            and id in (select id from runs where id = ${runId}::uuid for update skip locked)`;
  const unlessCancelled = options.unlessCancelPending ? sql` and cancel_requested is null` : sql``;
  const onlyIf = options.onlyIf ? sql` and (${options.onlyIf})` : sql``;
  const alsoDo = (options.alsoDo ?? []).map((cte) => sql`, ${cte}`);
  const rows = events.map((event, index) => ({
    n: index + 1,
    type: event.type,
    version: RUN_EVENT_VERSIONS[event.type],
    payload: event.payload ?? {},
  }));
  const rowsJson = jsonParameter(rows);
  const result = await executor.execute(sql`
    with bumped as (
      update runs set last_seq = last_seq + ${events.length}, updated_at = now()${options.alsoSet ? sql`, ${options.alsoSet}` : sql``}
      where id = ${runId}::uuid${fenced}${unlessCancelled}${onlyIf}
      returning last_seq, cancel_requested, allowed_tools
    ), inserted as (
      insert into run_events (run_id, seq, type, version, payload)
      select ${runId}::uuid, bumped.last_seq - ${events.length} + e.n, e.type, e.version, e.payload
      from bumped, jsonb_to_recordset(${rowsJson}::jsonb) as e(n int, type text, version int, payload jsonb)
      returning seq, type, payload
    )${sql.join(alsoDo, sql``)}
    select array_agg(seq order by seq) as seqs, (select cancel_requested from bumped) as cancel_pending,
           (select allowed_tools from bumped) as allowed_tools,
           pg_notify(${RUN_EVENTS_CHANNEL}, ${runId}::text || ':' || max(seq)::text) as notified,
           now() as committed_at
    from inserted
    having count(*) > 0`);
  const [row] = rowsOf<{
    seqs: number[];
    cancel_pending: "turn" | "run" | null;
    allowed_tools: unknown;
    committed_at: Date | string;
  }>(result);
  if (row) {
    const seqs = row.seqs.map(Number);
    const committed = committedEvents(runId, seqs, rowsJson, row.committed_at);
    const allowedTools =
      typeof row.allowed_tools === "string" ? JSON.parse(row.allowed_tools) : row.allowed_tools;
    return { appended: { seqs, cancelPending: row.cancel_pending, allowedTools }, committed };
  }
  const cancelPending = await whyNothingWasAppended(executor, runId, events, options);
  return { appended: { seqs: null, cancelPending }, committed: null };
}

/**
 * What {@link appendEvents} stored, as {@link readEvents} would read it back: the rows' storable
 * JSON parsed again (what `jsonb` keeps, keys perhaps in another order), each at its seq, at the
 * statement's `now()`, which is every inserted row's `created_at`.
 */
function committedEvents(
  runId: string,
  seqs: number[],
  rowsJson: string | null,
  committedAt: Date | string,
): CommittedEvents {
  let events: StoredRunEvent[] | undefined;
  return {
    runId,
    lastSeq: seqs[seqs.length - 1] ?? 0,
    events() {
      if (events) return events;
      const at = new Date(committedAt).toISOString();
      const stored = JSON.parse(rowsJson ?? "[]") as Array<{
        n: number;
        type: string;
        version: number;
        payload: unknown;
      }>;
      events = stored.map((row) =>
        decodeRunEvent(runId, {
          seq: seqs[row.n - 1] ?? Number.NaN,
          type: row.type,
          version: row.version,
          payload: row.payload,
          at,
        }),
      );
      return events;
    },
  };
}

/** Nothing was appended: a cancel is pending (and was asked about), or the claim is lost, or there is no run. */
async function whyNothingWasAppended(
  executor: Executor,
  runId: string,
  events: readonly RunEvent[],
  options: AppendOptions,
): Promise<"turn" | "run"> {
  const [run] = rowsOf<{
    claim_token: string | null;
    status: string;
    cancel_requested: "turn" | "run" | null;
  }>(
    await executor.execute(
      sql`select claim_token, status, cancel_requested from runs where id = ${runId}::uuid`,
    ),
  );
  const { fence } = options;
  const holds = run && (fence === null || (run.claim_token === fence && run.status === "RUNNING"));
  if (holds && options.unlessCancelPending && run.cancel_requested) return run.cancel_requested;
  if (run && fence !== null) throw new LostClaimError(runId);
  throw new Error(`cannot append ${events.map((event) => event.type).join(", ")}: no run ${runId}`);
}

/** {@link appendEvents} of one event; returns its seq. */
export async function appendEvent(
  executor: Executor,
  runId: string,
  event: RunEvent,
  options: Omit<AppendOptions, "unlessCancelPending">,
): Promise<number> {
  const { seqs } = await appendEvents(executor, runId, [event], options);
  return seqs?.[0] ?? Number.NaN;
}

/** A run's events after `afterSeq` (at most `limit` of them), decoded from whichever version they were written at. */
export async function readEvents(
  db: Executor,
  runId: string,
  afterSeq: number,
  limit?: number,
): Promise<StoredRunEvent[]> {
  const query = db
    .select()
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), gt(runEvents.seq, afterSeq)))
    .orderBy(asc(runEvents.seq));
  const rows = await (limit === undefined ? query : query.limit(limit));
  return rows.map((row) => decodeStoredEvent(runId, row));
}

/**
 * A run's latest event of one of `types`, decoded as {@link readEvents} decodes it; null when it has
 * none. One row comes back, not the history: each month's partition walks its key index (`run_id`,
 * `seq`) backwards from the run's newest event there to its latest match, and the months' answers
 * are merged by seq (db/event-partitions.test.ts checks the plan).
 */
export async function readLatestEvent(
  db: Executor,
  runId: string,
  types: readonly RunEventType[],
): Promise<StoredRunEvent | null> {
  if (types.length === 0) return null;
  const [row] = await db
    .select()
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), inArray(runEvents.type, [...types])))
    .orderBy(desc(runEvents.seq))
    .limit(1);
  return row ? decodeStoredEvent(runId, row) : null;
}

/** A stored row as an event, at the version it is read at now. */
const decodeStoredEvent = (runId: string, row: typeof runEvents.$inferSelect): StoredRunEvent =>
  decodeRunEvent(runId, {
    seq: row.seq,
    type: row.type,
    version: row.version,
    payload: row.payload,
    at: row.createdAt.toISOString(),
  });
