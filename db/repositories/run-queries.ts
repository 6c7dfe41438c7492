import { desc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { runs } from "../schema";

/** Runs waiting for a decision, the longest-waiting last (newest waits first). */
export async function listWaitingRuns(db: Db) {
  return db
    .select({ id: runs.id, name: runs.name, waitingSince: runs.waitingSince, state: runs.state })
    .from(runs)
    .where(eq(runs.status, "WAITING_FOR_APPROVAL"))
    .orderBy(desc(runs.waitingSince), desc(runs.id));
}

/** The most recently started runs, newest first (the playground's "Recent runs"). */
export async function listRecentRuns(db: Db, limit: number) {
  return db
    .select({ id: runs.id, name: runs.name, status: runs.status, createdAt: runs.createdAt })
    .from(runs)
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit);
}
