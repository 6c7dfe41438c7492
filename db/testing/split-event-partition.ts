import { sql } from "drizzle-orm";
import type { Db } from "../client";
import { listEventPartitions } from "../event-partitions";
import { rowsOf } from "../repositories/append-event";

/**
 * Puts a partition boundary at this instant, for tests of what spans one (a month's end cannot be
 * waited for): this month's partition is detached and attached again up to now, and a new one
 * holds from now to the month's end. Every event committed so far is before the boundary; every
 * one committed after this returns is after it. Returns the two partitions' names.
 */
export async function splitEventPartitionNow(db: Db): Promise<{ before: string; after: string }> {
  const now = new Date();
  const month = (await listEventPartitions(db)).find(
    (partition) => partition.from <= now && now < partition.until,
  );
  if (!month) throw new Error("no partition holds this month's events");
  const after = `${month.name}_from_${now.getTime()}`;
  await db.transaction(async (transaction) => {
    const [row] = rowsOf<{ at: string }>(
      await transaction.execute(sql`select clock_timestamp()::text as at`),
    );
    const at = String(row?.at);
    const literal = (value: string) => sql.raw(`'${value.replaceAll("'", "''")}'`);
    await transaction.execute(sql`alter table run_events detach partition ${sql.identifier(month.name)}`);
    await transaction.execute(
      sql`alter table run_events attach partition ${sql.identifier(month.name)} for values from (${literal(month.from.toISOString())}) to (${literal(at)})`,
    );
    await transaction.execute(
      sql`create table ${sql.identifier(after)} partition of run_events for values from (${literal(at)}) to (${literal(month.until.toISOString())})`,
    );
  });
  return { before: month.name, after };
}
