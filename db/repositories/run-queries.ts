import { and, desc, eq, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../client";
import { runs } from "../schema";

/**
 * Where a page of waiting runs starts: after this run, in newest-wait-first
 * order. `waitingSince` is the database's own text of the time, to the
 * microsecond (a JavaScript Date would round it and skip rows).
 */
export interface WaitingRunCursor {
  waitingSince: string | null;
  id: string;
}

/**
 * A page of the runs waiting for a decision, newest wait first (then by id),
 * after `after` (keyset: no offset to scan past): only what the inbox shows,
 * the pending turn taken out of the stored state by the database.
 */
export async function listWaitingRuns(db: Db, page: { limit: number; after: WaitingRunCursor | null }) {
  const { after } = page;
  const afterCursor =
    after === null
      ? undefined
      : after.waitingSince === null
        ? or(and(isNull(runs.waitingSince), lt(runs.id, after.id)), isNotNull(runs.waitingSince))
        : or(
            sql`${runs.waitingSince} < ${after.waitingSince}::timestamptz`,
            and(sql`${runs.waitingSince} = ${after.waitingSince}::timestamptz`, lt(runs.id, after.id)),
          );
  return (
    db
      .select({
        id: runs.id,
        name: runs.name,
        waitingSince: runs.waitingSince,
        cursorTime: sql<string | null>`${runs.waitingSince}::text`,
        schemaVersion: sql<unknown>`${runs.state}->'schemaVersion'`,
        stepIndex: sql<unknown>`${runs.state}->'stepIndex'`,
        pending: sql<unknown>`${runs.state}->'pending'`,
      })
      .from(runs)
      .where(and(eq(runs.status, "WAITING_FOR_APPROVAL"), afterCursor))
      // Postgres puts NULLs first in descending order: rows from before waits were timed lead.
      .orderBy(desc(runs.waitingSince), desc(runs.id))
      .limit(page.limit)
  );
}

/** How many runs wait for a decision. */
export async function countWaitingRuns(db: Db): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(runs)
    .where(eq(runs.status, "WAITING_FOR_APPROVAL"));
  return Number(row?.count ?? 0);
}

/** The most recently started runs, newest first (the playground's "Recent runs"). */
export async function listRecentRuns(db: Db, limit: number) {
  return db
    .select({ id: runs.id, name: runs.name, status: runs.status, createdAt: runs.createdAt })
    .from(runs)
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit);
}
