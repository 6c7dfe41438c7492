import { inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../client";
import { type EventPartition, listEventPartitions } from "../event-partitions";
import { runChanges, runEvents, runs } from "../schema";
import { isActiveStatus } from "./run-housekeeping";

/**
 * Which of `run_events`' partitions retention may drop (docs/housekeeping.md#retention): those
 * whose whole range is older than the cutoff and whose every event belongs to a run that ended
 * before it, and whose runs have no event in a partition that stays. A run's log goes whole or
 * not at all.
 */
export interface RetentionPlan {
  cutoff: Date;
  partitions: EventPartition[];
  /** The runs whose whole event logs those partitions hold: exported, then deleted with them. */
  runIds: string[];
  /** The partitions old enough that stay, each with why. */
  kept: Array<{ partition: string; reason: string }>;
}

const partitionOfRow = sql<string>`${runEvents}.tableoid::regclass::text`;

export async function planEventRetention(db: Db, cutoff: Date): Promise<RetentionPlan> {
  const candidates = (await listEventPartitions(db)).filter((partition) => partition.until <= cutoff);
  if (candidates.length === 0) return { cutoff, partitions: [], runIds: [], kept: [] };
  const newestUntil = new Date(Math.max(...candidates.map((partition) => partition.until.getTime())));
  const runsByPartition = groupBy(
    await db
      .select({ runId: runEvents.runId, partition: partitionOfRow })
      .from(runEvents)
      .where(lt(runEvents.createdAt, newestUntil))
      .groupBy(runEvents.runId, partitionOfRow),
    (row) => row.partition,
    (row) => row.runId,
  );
  const runIds = [...new Set([...runsByPartition.values()].flat())];
  const [finished, partitionsByRun] = runIds.length
    ? await Promise.all([
        db
          .select({ id: runs.id, status: runs.status, finishedAt: runs.finishedAt })
          .from(runs)
          .where(inArray(runs.id, runIds)),
        db
          .select({ runId: runEvents.runId, partition: partitionOfRow })
          .from(runEvents)
          .where(inArray(runEvents.runId, runIds))
          .groupBy(runEvents.runId, partitionOfRow)
          .then((rows) =>
            groupBy(
              rows,
              (row) => row.runId,
              (row) => row.partition,
            ),
          ),
      ])
    : [[], new Map<string, string[]>()];
  const whyNot = new Map<string, string>();
  for (const run of finished) {
    if (isActiveStatus(run.status)) whyNot.set(run.id, `run ${run.id} has not ended (${run.status})`);
    else if (!run.finishedAt || run.finishedAt > cutoff) {
      whyNot.set(run.id, `run ${run.id} ended after ${cutoff.toISOString()}`);
    }
  }

  // Until nothing changes: a partition kept keeps every run with an event in it, and with them their other partitions.
  const dropping = new Set(candidates.map((partition) => partition.name));
  const kept: RetentionPlan["kept"] = [];
  let changed = true;
  while (changed) {
    changed = false;
    for (const partition of dropping) {
      for (const runId of runsByPartition.get(partition) ?? []) {
        const elsewhere = (partitionsByRun.get(runId) ?? []).find((other) => !dropping.has(other));
        const reason =
          whyNot.get(runId) ?? (elsewhere && `run ${runId} also has events in ${elsewhere}, which stays`);
        if (reason) {
          dropping.delete(partition);
          kept.push({ partition, reason });
          changed = true;
          break;
        }
      }
    }
  }
  const partitions = candidates.filter((partition) => dropping.has(partition.name));
  return {
    cutoff,
    partitions,
    runIds: [...new Set(partitions.flatMap((partition) => runsByPartition.get(partition.name) ?? []))],
    kept,
  };
}

/**
 * Detaches and drops the plan's partitions and deletes its runs' rows in one transaction, each
 * deletion recorded as the command line's (the approvals audit has no foreign key and stays).
 * Should any of those runs still have an event elsewhere, the log's append-only trigger refuses
 * the cascade and nothing at all is dropped.
 */
export async function dropRetainedPartitions(db: Db, plan: RetentionPlan, actorName: string): Promise<void> {
  await db.transaction(async (transaction) => {
    for (const { name } of plan.partitions) {
      await transaction.execute(sql`alter table run_events detach partition ${sql.identifier(name)}`);
      await transaction.execute(sql`drop table ${sql.identifier(name)}`);
    }
    if (plan.runIds.length === 0) return;
    const gone = await transaction
      .select({ id: runs.id, name: runs.name })
      .from(runs)
      .where(inArray(runs.id, plan.runIds))
      .for("update");
    if (gone.length === 0) return;
    await transaction
      .insert(runChanges)
      .values(gone.map((run) => ({ kind: "deleted" as const, runId: run.id, runName: run.name, actorName })));
    await transaction.delete(runs).where(inArray(runs.id, plan.runIds));
  });
}

function groupBy<T>(
  rows: T[],
  keyOf: (row: T) => string,
  memberOf: (row: T) => string,
): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const row of rows) {
    const key = keyOf(row);
    groups.set(key, [...(groups.get(key) ?? []), memberOf(row)]);
  }
  return groups;
}
