import {
  and,
  asc,
  desc,
  eq,
  gt,
  ilike,
  inArray,
  isNotNull,
  isNull,
  lt,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { isTerminalStatus } from "@/lib/runtime/run/is-terminal-status";
import { RUN_STATUSES } from "@/lib/runtime/run/run-types";
import type { ArchivedFilter, InboxFilter, RowCursor, RunListFilter } from "@/lib/wire/list-filters";
import type { Db } from "../client";
import { runs, steps } from "../schema";
import { containing, idStartsWith } from "./text-match";

/**
 * The start of the starter's name, one character longer than a name may be
 * (MAX_PERSON_NAME_LENGTH, lib/runtime/person-name.ts): a name stored before
 * names were limited can be megabytes; lib/server cuts the rest with capPersonName.
 */
export const NAME_HEAD_LENGTH = 101;
const startedByNameHead = sql<
  string | null
>`left(${runs.startedByName}, ${sql.raw(String(NAME_HEAD_LENGTH))})`;

/**
 * The policy rule that gated the barrier (the pending turn's first call), if one did. The index is
 * checked before the cast: a state that does not decode is listed as unreadable, never an error.
 */
const barrierIndex = sql`(${runs.state}->'pending'->'calls'->0->>'batchIndex')`;
const barrierRuleOfState = sql<unknown>`case when ${barrierIndex} ~ '^[0-9]{1,9}$'
  then ${runs.state}->'calls'->(${barrierIndex}::int)->'policy'->>'rule' end`;

/**
 * A page of the runs waiting for a decision in waiting-time order (then by
 * id), after `after` (keyset: no offset to scan past): only what the inbox
 * shows, the pending turn taken out of the stored state by the database.
 */
export async function listWaitingRuns(
  db: Db,
  page: { limit: number; after: RowCursor | null; filter?: InboxFilter },
) {
  const filter = page.filter ?? {};
  const direction = filter.order === "oldest" ? "asc" : "desc";
  return db
    .select({
      id: runs.id,
      name: runs.name,
      waitingSince: runs.waitingSince,
      startedByName: startedByNameHead,
      archivedAt: runs.archivedAt,
      cursorTime: sql<string | null>`${runs.waitingSince}::text`,
      schemaVersion: sql<unknown>`${runs.state}->'schemaVersion'`,
      stepIndex: sql<unknown>`${runs.state}->'stepIndex'`,
      pending: sql<unknown>`${runs.state}->'pending'`,
      barrierRule: barrierRuleOfState,
    })
    .from(runs)
    .where(and(waitingRunsMatching(filter), afterRow(runs.waitingSince, runs.id, page.after, direction)))
    .orderBy(...orderBy(runs.waitingSince, runs.id, direction))
    .limit(page.limit);
}

/** How many runs wait for a decision (that match the filter). */
export async function countWaitingRuns(db: Db, filter: InboxFilter = {}): Promise<number> {
  const [row] = await waitingRunsCount(db, filter);
  return Number(row?.count ?? 0);
}

/** The statement {@link countWaitingRuns} sends (its plan is tested: it must stay an index-only count). */
export function waitingRunsCount(db: Db, filter: InboxFilter = {}) {
  return db.select({ count: sql<number>`count(*)::int` }).from(runs).where(waitingRunsMatching(filter));
}

function waitingRunsMatching(filter: InboxFilter): SQL | undefined {
  return and(
    // A literal, not a parameter: a plan made for any status could not use the inbox's partial index.
    sql`${runs.status} = 'WAITING_FOR_APPROVAL'`,
    archivedMatching(filter.archived),
    filter.tool
      ? sql`exists (select 1 from jsonb_array_elements(${runs.state}->'pending'->'calls') as call
          where call->>'name' = ${filter.tool})`
      : undefined,
    filter.search ? nameOrIdMatches(filter.search) : undefined,
    filter.startedBy ? ilike(runs.startedByName, containing(filter.startedBy)) : undefined,
  );
}

/** A page of every run, newest first, after `after`, with its step count. */
export async function listRuns(
  db: Db,
  page: { limit: number; after: RowCursor | null; filter?: RunListFilter },
) {
  return db
    .select({
      id: runs.id,
      name: runs.name,
      status: runs.status,
      startedByName: startedByNameHead,
      createdAt: runs.createdAt,
      finishedAt: runs.finishedAt,
      archivedAt: runs.archivedAt,
      modelCalls: runs.modelCalls,
      steps: sql<number>`(select count(*)::int from ${steps} where ${steps.runId} = ${runs.id})`,
      cursorTime: sql<string>`${runs.createdAt}::text`,
    })
    .from(runs)
    .where(and(runsMatching(page.filter ?? {}), afterRow(runs.createdAt, runs.id, page.after, "desc")))
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(page.limit);
}

/**
 * How many runs match the filter, counting no further than `upTo`: a count of every row grows with
 * the table (33 ms at 200,000 runs, where the page itself takes 0.2 ms), a bounded one does not.
 */
export async function countRuns(db: Db, filter: RunListFilter, upTo: number): Promise<number> {
  const matching = db
    .select({ one: sql`1` })
    .from(runs)
    .where(runsMatching(filter))
    .limit(upTo)
    .as("matching");
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(matching);
  return Number(row?.count ?? 0);
}

function runsMatching(filter: RunListFilter): SQL | undefined {
  return and(
    filter.status ? eq(runs.status, filter.status) : undefined,
    archivedMatching(filter.archived),
    filter.search
      ? or(nameOrIdMatches(filter.search), ilike(runs.startedByName, containing(filter.search)))
      : undefined,
  );
}

/** The most recently started runs that are not archived, newest first (the playground's "Recent runs"). */
export async function listRecentRuns(db: Db, limit: number) {
  return db
    .select({ id: runs.id, name: runs.name, status: runs.status, createdAt: runs.createdAt })
    .from(runs)
    .where(archivedMatching("hide"))
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit);
}

function archivedMatching(archived: ArchivedFilter = "hide"): SQL | undefined {
  if (archived === "include") return undefined;
  return archived === "only" ? isNotNull(runs.archivedAt) : isNull(runs.archivedAt);
}

function nameOrIdMatches(search: string): SQL | undefined {
  return or(ilike(runs.name, containing(search)), idStartsWith(runs.id, search));
}

/**
 * Rows after the cursor in (time, id) order. Postgres sorts NULL times first
 * in descending order and last in ascending order: rows from before a time
 * was recorded keep their place either way.
 */
function afterRow(
  time: PgColumn,
  id: PgColumn,
  after: RowCursor | null,
  direction: "asc" | "desc",
): SQL | undefined {
  if (after === null) return undefined;
  const beyond = direction === "desc" ? lt : gt;
  if (after.time === null) {
    return direction === "desc"
      ? or(and(isNull(time), lt(id, after.id)), isNotNull(time))
      : and(isNull(time), gt(id, after.id));
  }
  const pastTime =
    direction === "desc"
      ? sql`${time} < ${after.time}::timestamptz`
      : or(sql`${time} > ${after.time}::timestamptz`, isNull(time));
  return or(pastTime, and(sql`${time} = ${after.time}::timestamptz`, beyond(id, after.id)));
}

function orderBy(time: PgColumn, id: PgColumn, direction: "asc" | "desc") {
  return direction === "desc" ? [desc(time), desc(id)] : [asc(time), asc(id)];
}

const LIVE_STATUSES = RUN_STATUSES.filter((status) => !isTerminalStatus(status));
const FINISHED_STATUSES = RUN_STATUSES.filter(isTerminalStatus);

/**
 * How many runs are running and waiting, and since when the longest wait has waited (null when none
 * waits): ranges of `runs_status_waiting_since_id_idx`, as small as the backlog however many runs
 * have finished.
 */
export async function countLiveRuns(
  db: Db,
): Promise<{ byStatus: Record<string, number>; oldestWait: Date | null }> {
  const rows = await db
    .select({
      status: runs.status,
      count: sql<number>`count(*)::int`,
      oldestWait: sql<string | null>`min(${runs.waitingSince})::text`,
    })
    .from(runs)
    .where(inArray(runs.status, LIVE_STATUSES))
    .groupBy(runs.status);
  const byStatus: Record<string, number> = {};
  let oldestWait: Date | null = null;
  for (const row of rows) {
    byStatus[row.status] = Number(row.count);
    if (row.status === "WAITING_FOR_APPROVAL" && row.oldestWait) oldestWait = new Date(row.oldestWait);
  }
  return { byStatus, oldestWait };
}

/**
 * How many runs have finished, by status: every finished run is read, so its cost grows with the
 * table (67 ms at 600,000 runs); callers keep the answer a while (lib/server/metrics/read-metrics.ts).
 */
export async function countFinishedRuns(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .select({ status: runs.status, count: sql<number>`count(*)::int` })
    .from(runs)
    .where(inArray(runs.status, FINISHED_STATUSES))
    .groupBy(runs.status);
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
}
