/** What the store's three repositories share: how a run row is read, and the SQL pieces they all use. */
import { and, eq, getTableColumns, isNull, lt, or, sql } from "drizzle-orm";
import { decodeLimits, decodeToolAllowances, type RunRecord } from "@/lib/runtime";
import { runs } from "../schema";

/** The run's columns, and whether its lease has run out by the database's clock. */
export const runWithLease = {
  ...getTableColumns(runs),
  leaseExpired: sql<boolean>`(${runs.status} = 'RUNNING' and coalesce(${runs.leaseExpiresAt} < now(), true))`,
  // The transaction that last wrote the row: any write changes it.
  version: sql<string>`${runs}.xmin::text`,
};

export function toRunRecord(
  row: typeof runs.$inferSelect & { leaseExpired: boolean; version: string },
): RunRecord {
  return {
    id: row.id,
    status: row.status,
    scenario: row.scenario,
    limits: decodeLimits(row.id, row.limits),
    modelCalls: row.modelCalls,
    state: row.state,
    startedById: row.startedById,
    leaseExpired: row.leaseExpired,
    allowedTools: decodeToolAllowances(row.allowedTools),
    version: row.version,
  };
}

/** A `jsonb` column of a raw statement: drivers hand it over parsed, or (some) as its text. */
export const parseJson = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);

/** A RUNNING run nobody holds any more: its lease ran out (or, from before leases, was never set). */
export const isExpired = and(
  eq(runs.status, "RUNNING"),
  or(isNull(runs.leaseExpiresAt), lt(runs.leaseExpiresAt, sql`now()`)),
);

/** The NOTIFY channel that announces a cancellation asked of a running run, as its id. */
export const RUN_CANCELS_CHANNEL = "run_cancels";

/** `now() + leaseMs` in the database's clock, which every instance shares. */
export const leaseFromNow = (leaseMs: number) => sql`now() + ${`${leaseMs} milliseconds`}::interval`;

/** The tool call of the step whose `call_started`/`call_settled` is the `inserted` row. */
export const callOf = (runId: string, stepIndex: number) =>
  sql`tool_calls.run_id = ${runId}::uuid and tool_calls.step_index = ${stepIndex}
    and tool_calls.batch_index = (inserted.payload->>'batchIndex')::int`;
