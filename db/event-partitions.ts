import { type SQL, sql } from "drizzle-orm";

/**
 * `run_events`' monthly partitions (migration 0017, docs/housekeeping.md#a-year-of-events).
 * Self-contained (drizzle's `sql` and nothing of ours) so that db/client.ts can make the months
 * ahead when it opens a database, before any repository is loaded.
 */

/** How many months ahead of now partitions exist: a process that stops sweeping for that long still files events by month. */
export const PARTITION_MONTHS_AHEAD = 3;

/** What runs a raw statement: the database or a transaction of either driver. */
export interface StatementExecutor {
  execute(query: SQL): PromiseLike<unknown>;
}

/** A partition: its table and the `created_at` range it holds, `[from, until)`. */
export interface EventPartition {
  name: string;
  from: Date;
  until: Date;
}

/**
 * Creates the monthly partitions from `now`'s month to {@link PARTITION_MONTHS_AHEAD} months
 * ahead that are missing, and returns the names of those it made. Idempotent; instances doing it
 * at once wait on one lock (the database function of migration 0017 does the work).
 */
export async function ensureEventPartitions(db: StatementExecutor, now: Date): Promise<string[]> {
  const ahead = new Date(now);
  ahead.setUTCMonth(ahead.getUTCMonth() + PARTITION_MONTHS_AHEAD);
  const result = await db.execute(
    sql`select ensure_run_events_partitions(${now.toISOString()}::timestamptz, ${ahead.toISOString()}::timestamptz) as name`,
  );
  return rowsOf<{ name: string }>(result).map((row) => row.name);
}

/**
 * The range partitions there are with their bounds, oldest first (the default partition is not
 * among them). Bounds are read back from the catalogue, so a partition made by hand counts too.
 */
export async function listEventPartitions(db: StatementExecutor): Promise<EventPartition[]> {
  const result = await db.execute(sql`
    select name, bounds[1]::timestamptz as "from", bounds[2]::timestamptz as "until"
    from (
      select child.relname::text as name,
             regexp_match(pg_get_expr(child.relpartbound, child.oid), 'FROM [(]''([^'']+)''[)] TO [(]''([^'']+)''[)]') as bounds
      from pg_inherits
      join pg_class child on child.oid = pg_inherits.inhrelid
      where pg_inherits.inhparent = 'run_events'::regclass
    ) partitions
    where bounds is not null
    order by 2`);
  return rowsOf<{ name: string; from: string | Date; until: string | Date }>(result).map((row) => ({
    name: row.name,
    from: new Date(row.from),
    until: new Date(row.until),
  }));
}

function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}
