import { and, asc, desc, gte, inArray, lt, max, sql } from "drizzle-orm";
import { decodeRunEvent, type StoredRunEvent } from "@/lib/runtime/events/run-events";
import type { Db } from "../client";
import { runEvents, runs } from "../schema";

/**
 * The event logs of the runs that planned a step or started a wait in
 * [since, until), the most recently active first, at most `limit` runs (one
 * query for the ids, one for their events). Each log is whole, so a wait that
 * began in the range is measured to its end even after it. `runIds`, when
 * given, keeps only those runs.
 */
export async function readActiveRunLogs(
  db: Db,
  range: { since: Date; until: Date; limit: number; runIds?: readonly string[] },
): Promise<{ logs: Array<{ runId: string; events: StoredRunEvent[] }>; truncated: boolean }> {
  const active = await db
    .select({ runId: runEvents.runId, last: max(runEvents.createdAt) })
    .from(runEvents)
    .where(
      and(
        inArray(runEvents.type, ["step_planned", "awaiting_approval"]),
        gte(runEvents.createdAt, range.since),
        lt(runEvents.createdAt, range.until),
        range.runIds ? inArray(runEvents.runId, [...range.runIds]) : undefined,
      ),
    )
    .groupBy(runEvents.runId)
    .orderBy(desc(sql`max(${runEvents.createdAt})`))
    .limit(range.limit + 1);
  const runIds = active.slice(0, range.limit).map((row) => row.runId);
  if (runIds.length === 0) return { logs: [], truncated: false };
  const rows = await db
    .select()
    .from(runEvents)
    .where(inArray(runEvents.runId, runIds))
    .orderBy(asc(runEvents.runId), asc(runEvents.seq));
  const logs = new Map<string, StoredRunEvent[]>(runIds.map((id) => [id, []]));
  for (const row of rows) {
    logs.get(row.runId)?.push(
      decodeRunEvent(row.runId, {
        seq: row.seq,
        type: row.type,
        version: row.version,
        payload: row.payload,
        at: row.createdAt.toISOString(),
      }),
    );
  }
  return {
    logs: [...logs.entries()].map(([runId, events]) => ({ runId, events })),
    truncated: active.length > range.limit,
  };
}

/** The scenarios (as stored, undecoded) of the given runs, by run id. */
export async function readRunScenarios(db: Db, runIds: readonly string[]): Promise<Map<string, unknown>> {
  if (runIds.length === 0) return new Map();
  const rows = await db
    .select({ id: runs.id, scenario: runs.scenario })
    .from(runs)
    .where(inArray(runs.id, [...runIds]));
  return new Map(rows.map((row) => [row.id, row.scenario]));
}
