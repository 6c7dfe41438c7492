import { and, desc, eq, sql } from "drizzle-orm";
import type { RunStatus } from "@/lib/runtime";
import type { Db } from "../client";
import { type RunChangeKind, runChanges, runs } from "../schema";

/** Who archived or deleted a run: a signed-in person, or null from the command line on the database. */
export type RunChangeActor = { id: string; name: string } | null;

/** What housekeeping needs to know of a run: whose it is, whether it is still going, whether it is archived. */
export interface HousekeptRun {
  id: string;
  name: string;
  status: RunStatus;
  startedById: string | null;
  archivedAt: Date | null;
}

type Transaction = Parameters<Parameters<Db["transaction"]>[0]>[0];

const ACTIVE_STATUSES: readonly RunStatus[] = ["RUNNING", "WAITING_FOR_APPROVAL"];

export function isActiveStatus(status: RunStatus): boolean {
  return ACTIVE_STATUSES.includes(status);
}

/** The run as housekeeping sees it, or null when there is none. */
export async function findHousekeptRun(db: Db, runId: string): Promise<HousekeptRun | null> {
  const [row] = await db
    .select({
      id: runs.id,
      name: runs.name,
      status: runs.status,
      startedById: runs.startedById,
      archivedAt: runs.archivedAt,
    })
    .from(runs)
    .where(eq(runs.id, runId));
  return row ?? null;
}

/** The deletion recorded for a run id, if it was deleted: a second delete can say when and by whom. */
export async function findRunDeletion(db: Db, runId: string) {
  const [row] = await db
    .select({ at: runChanges.at, actorName: runChanges.actorName, runName: runChanges.runName })
    .from(runChanges)
    .where(and(eq(runChanges.runId, runId), eq(runChanges.kind, "deleted")))
    .orderBy(desc(runChanges.id))
    .limit(1);
  return row ?? null;
}

/**
 * Archives or unarchives a run, with its row in run_changes, in one
 * transaction on the locked run. Nothing to change (already so) writes
 * nothing: `changed` is false. Null when there is no such run.
 */
export async function setRunArchived(
  db: Db,
  runId: string,
  archived: boolean,
  actor: RunChangeActor,
): Promise<{ run: HousekeptRun; changed: boolean } | null> {
  return db.transaction(async (transaction: Transaction) => {
    const run = await lockRun(transaction, runId);
    if (!run) return null;
    if ((run.archivedAt !== null) === archived) return { run, changed: false };
    const [updated] = await transaction
      .update(runs)
      .set({ archivedAt: archived ? sql`now()` : null })
      .where(eq(runs.id, runId))
      .returning({ archivedAt: runs.archivedAt });
    await recordChange(transaction, run, archived ? "archived" : "unarchived", actor);
    return { run: { ...run, archivedAt: updated?.archivedAt ?? null }, changed: true };
  });
}

/**
 * Deletes a finished run's own data (its row, events, steps, calls, files,
 * memory, tasks, agent mailbox: they go with the row) and records the
 * deletion; the approvals audit has no foreign key and stays. A run still
 * running or waiting is left alone: `active`. The event log's trigger lets its
 * rows go only for the run this transaction names (migration 0011).
 */
export async function deleteRunData(
  db: Db,
  runId: string,
  actor: RunChangeActor,
): Promise<{ outcome: "deleted"; run: HousekeptRun } | { outcome: "active"; run: HousekeptRun } | null> {
  return db.transaction(async (transaction: Transaction) => {
    const run = await lockRun(transaction, runId);
    if (!run) return null;
    if (isActiveStatus(run.status)) return { outcome: "active" as const, run };
    await recordChange(transaction, run, "deleted", actor);
    await transaction.execute(sql`select set_config('playground.deleting_run', ${runId}, true)`);
    await transaction.delete(runs).where(eq(runs.id, runId));
    await transaction.execute(sql`select set_config('playground.deleting_run', '', true)`);
    return { outcome: "deleted" as const, run };
  });
}

async function lockRun(transaction: Transaction, runId: string): Promise<HousekeptRun | null> {
  const [row] = await transaction
    .select({
      id: runs.id,
      name: runs.name,
      status: runs.status,
      startedById: runs.startedById,
      archivedAt: runs.archivedAt,
    })
    .from(runs)
    .where(eq(runs.id, runId))
    .for("update");
  return row ?? null;
}

async function recordChange(
  transaction: Transaction,
  run: HousekeptRun,
  kind: RunChangeKind,
  actor: RunChangeActor,
): Promise<void> {
  await transaction.insert(runChanges).values({
    kind,
    runId: run.id,
    runName: run.name,
    actorId: actor?.id ?? null,
    actorName: actor?.name ?? null,
  });
}
