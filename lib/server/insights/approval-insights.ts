import "server-only";
import { stringify } from "csv-stringify/sync";
import { z } from "zod";
import { readActiveRunLogs } from "@/db/repositories/insights-queries";
import { type ApprovalInsights, summariseApprovals } from "@/lib/runtime/view/approval-insights";
import { getDatabase } from "@/lib/server/database";

const HOUR = 3_600_000;
/** The ranges the page offers, each with the width of its waits-over-time buckets. */
export const INSIGHT_RANGES = {
  "24h": { ms: 24 * HOUR, bucketMs: HOUR },
  "7d": { ms: 7 * 24 * HOUR, bucketMs: 6 * HOUR },
  "30d": { ms: 30 * 24 * HOUR, bucketMs: 24 * HOUR },
} as const;
export type InsightRange = keyof typeof INSIGHT_RANGES;

/** The most runs one dashboard reads (the most recently active): past it, the page says so. */
export const INSIGHT_MAX_RUNS = 2_000;

/** Each table of the dashboard, as its CSV export names it. */
export const INSIGHT_TABLES = [
  "waits-over-time",
  "by-tool",
  "by-approver",
  "by-server",
  "calls",
  "completions",
] as const;
export type InsightTable = (typeof INSIGHT_TABLES)[number];

export const insightsQuerySchema = z.object({
  range: z.enum(Object.keys(INSIGHT_RANGES) as [InsightRange, ...InsightRange[]]).default("7d"),
  format: z.enum(["json", "csv"]).default("json"),
  table: z.enum(INSIGHT_TABLES).optional(),
});

export type InsightsPage = ApprovalInsights & { range: InsightRange; truncated: boolean; maxRuns: number };

/** The approvals dashboard over the last `range`, up to `now`. */
export async function loadApprovalInsights(range: InsightRange, now = new Date()): Promise<InsightsPage> {
  const { ms, bucketMs } = INSIGHT_RANGES[range];
  // Buckets line up on their own width, so the same hour or day is one bar however often the page loads.
  const until = new Date(Math.ceil(now.getTime() / bucketMs) * bucketMs);
  const since = new Date(until.getTime() - ms);
  const { db } = await getDatabase();
  const { logs, truncated } = await readActiveRunLogs(db, { since, until, limit: INSIGHT_MAX_RUNS });
  const insights = summariseApprovals(logs, {
    since: since.toISOString(),
    until: until.toISOString(),
    bucketMs,
  });
  return { ...insights, range, truncated, maxRuns: INSIGHT_MAX_RUNS };
}

/** One table of the dashboard as CSV: the numbers behind its chart, with its header even when empty. */
export function insightsTableCsv(insights: ApprovalInsights, table: InsightTable): string {
  const counts = (values: Record<string, number>) =>
    Object.entries(values).map(([kind, count]) => ({ kind, count }));
  const tables: Record<InsightTable, { columns: string[]; rows: object[] }> = {
    "waits-over-time": { columns: ["start", "started", "expired"], rows: insights.waitsOverTime },
    "by-tool": {
      columns: ["tool", "waits", "expired", "decisions", "p50Ms", "p90Ms", "maxMs"],
      rows: insights.byTool,
    },
    "by-approver": {
      columns: ["approver", "decisions", "p50Ms", "p90Ms", "maxMs"],
      rows: insights.byApprover,
    },
    "by-server": { columns: ["server", "waits"], rows: insights.byServer },
    calls: { columns: ["kind", "count"], rows: counts(insights.calls) },
    completions: { columns: ["kind", "count"], rows: counts(insights.completions) },
  };
  const { columns, rows } = tables[table];
  return stringify(rows, { header: true, columns });
}
