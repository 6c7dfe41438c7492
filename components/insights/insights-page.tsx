import Link from "next/link";
import type { ReactNode } from "react";
import type {
  InsightRange,
  InsightsPage as Insights,
  InsightTable,
} from "@/lib/server/insights/approval-insights";
import { formatSpan } from "../ui/format-duration";
import { BarChart } from "./bar-chart";

const RANGE_LABELS: Record<InsightRange, string> = { "24h": "24 hours", "7d": "7 days", "30d": "30 days" };

/** The approvals dashboard: each chart beside the table of its numbers, each table as CSV. */
export function InsightsPage({ insights }: { insights: Insights }) {
  const { waits, calls, completions } = insights;
  const share = (part: number) => (calls.total === 0 ? "0%" : `${Math.round((part / calls.total) * 100)}%`);
  const bucketLabel = (start: string) =>
    insights.range === "24h"
      ? `${start.slice(11, 16)}`
      : `${start.slice(5, 10)}${insights.range === "7d" ? ` ${start.slice(11, 13)}h` : ""}`;
  return (
    <div className="insights">
      <header className="insights-head">
        <h1>Insights</h1>
        <p className="muted">
          Where approvals wait, over the last {RANGE_LABELS[insights.range]} ({insights.runs}{" "}
          {insights.runs === 1 ? "run" : "runs"}), in UTC.
        </p>
        <nav aria-label="Range" className="insights-ranges">
          {(Object.keys(RANGE_LABELS) as InsightRange[]).map((range) => (
            <Link
              key={range}
              href={`/insights?range=${range}`}
              aria-current={range === insights.range ? "page" : undefined}
            >
              {RANGE_LABELS[range]}
            </Link>
          ))}
        </nav>
      </header>
      {insights.truncated && (
        <p className="notice" role="status">
          Only the {insights.maxRuns} most recently active runs are counted; choose a shorter range for all of
          them.
        </p>
      )}
      <dl className="insights-totals">
        <Total term="Waits for a person" value={waits.started} />
        <Total term="Decided" value={waits.decided} />
        <Total term="Expired" value={waits.expired} />
        <Total term="Cancelled" value={waits.cancelled} />
        <Total term="Still waiting" value={waits.open} />
        <Total term="Calls gated" value={`${calls.gated} (${share(calls.gated)})`} />
        <Total term="Allowed by a grant" value={`${calls.allowedByGrant} (${share(calls.allowedByGrant)})`} />
        <Total term="Completions saved vs legacy" value={completions.savedByWavesAndBarriers} />
      </dl>

      <Panel title="Waits over time" table="waits-over-time" range={insights.range}>
        <BarChart
          orientation="columns"
          description="Waits started and expired in each period"
          labels={insights.waitsOverTime.map((bucket) => bucketLabel(bucket.start))}
          series={[
            {
              name: "started",
              values: insights.waitsOverTime.map((b) => b.started),
              className: "chart-started",
            },
            {
              name: "expired",
              values: insights.waitsOverTime.map((b) => b.expired),
              className: "chart-expired",
            },
          ]}
        />
        <Table
          caption="Waits over time"
          head={["From (UTC)", "Started", "Expired"]}
          rows={insights.waitsOverTime.map((b) => [
            b.start.slice(0, 16).replace("T", " "),
            b.started,
            b.expired,
          ])}
        />
      </Panel>

      <Panel title="Time to decision, per tool" table="by-tool" range={insights.range}>
        <BarChart
          orientation="rows"
          description="Median and 90th percentile time to a decision, per gated tool"
          labels={insights.byTool.map((row) => row.tool)}
          format={formatSpan}
          atLeast={1_000}
          series={[
            { name: "p50", values: insights.byTool.map((row) => row.p50Ms), className: "chart-p50" },
            { name: "p90", values: insights.byTool.map((row) => row.p90Ms), className: "chart-p90" },
          ]}
        />
        <Table
          caption="Time to decision, per tool"
          head={["Tool", "Waits", "Expired", "Decided", "p50", "p90", "Longest"]}
          rows={insights.byTool.map((row) => [
            row.tool,
            row.waits,
            row.expired,
            row.decisions,
            formatSpan(row.p50Ms),
            formatSpan(row.p90Ms),
            formatSpan(row.maxMs),
          ])}
        />
      </Panel>

      <Panel title="Time to decision, per approver" table="by-approver" range={insights.range}>
        <BarChart
          orientation="rows"
          description="Median and 90th percentile time to a decision, per approver"
          labels={insights.byApprover.map((row) => row.approver)}
          format={formatSpan}
          atLeast={1_000}
          series={[
            { name: "p50", values: insights.byApprover.map((row) => row.p50Ms), className: "chart-p50" },
            { name: "p90", values: insights.byApprover.map((row) => row.p90Ms), className: "chart-p90" },
          ]}
        />
        <Table
          caption="Time to decision, per approver"
          head={["Approver", "Decided", "p50", "p90", "Longest"]}
          rows={insights.byApprover.map((row) => [
            row.approver,
            row.decisions,
            formatSpan(row.p50Ms),
            formatSpan(row.p90Ms),
            formatSpan(row.maxMs),
          ])}
        />
      </Panel>

      <Panel title="Waits per server" table="by-server" range={insights.range}>
        <BarChart
          orientation="rows"
          description="Waits caused by each MCP server's tools and the playground's own"
          labels={insights.byServer.map((row) => row.server)}
          series={[
            { name: "waits", values: insights.byServer.map((row) => row.waits), className: "chart-started" },
          ]}
        />
        <Table
          caption="Waits per server"
          head={["Server", "Waits"]}
          rows={insights.byServer.map((row) => [row.server, row.waits])}
        />
      </Panel>

      <Panel title="Calls: gated, granted, ungated" table="calls" range={insights.range}>
        <BarChart
          orientation="rows"
          description="Calls planned, by whether a person decided them"
          labels={["gated", "allowed by a grant", "ungated"]}
          series={[
            {
              name: "calls",
              values: [calls.gated, calls.allowedByGrant, calls.ungated],
              className: "chart-started",
            },
          ]}
        />
        <Table
          caption="Calls: gated, granted, ungated"
          head={["Calls", "Count", "Share"]}
          rows={[
            ["gated", calls.gated, share(calls.gated)],
            ["allowed by a grant", calls.allowedByGrant, share(calls.allowedByGrant)],
            ["ungated", calls.ungated, share(calls.ungated)],
            ["all", calls.total, "100%"],
          ]}
        />
      </Panel>

      <Panel title="Completions saved by waves and barriers" table="completions" range={insights.range}>
        <BarChart
          orientation="rows"
          description="Completions spent, saved compared with the legacy policy, and wasted by runs under it"
          labels={["spent", "saved vs legacy", "wasted under legacy"]}
          series={[
            {
              name: "completions",
              values: [completions.total, completions.savedByWavesAndBarriers, completions.wastedUnderLegacy],
              className: "chart-p50",
            },
          ]}
        />
        <Table
          caption="Completions saved by waves and barriers"
          head={["Completions", "Count"]}
          rows={[
            ["spent", completions.total],
            ["saved vs legacy", completions.savedByWavesAndBarriers],
            ["wasted under legacy", completions.wastedUnderLegacy],
          ]}
        />
      </Panel>
    </div>
  );
}

function Total({ term, value }: { term: string; value: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd className="numeric">{value}</dd>
    </div>
  );
}

function Panel({
  title,
  table,
  range,
  children,
}: {
  title: string;
  table: InsightTable;
  range: InsightRange;
  children: ReactNode;
}) {
  const id = `insights-${table}`;
  return (
    <section className="panel insights-panel" aria-labelledby={id}>
      <div className="insights-panel-head">
        <h2 id={id}>{title}</h2>
        <a href={`/api/insights?range=${range}&format=csv&table=${table}`} download>
          CSV<span className="visually-hidden"> of {title.toLowerCase()}</span>
        </a>
      </div>
      <div className="insights-panel-body">{children}</div>
    </section>
  );
}

function Table({
  caption,
  head,
  rows,
}: {
  caption: string;
  head: string[];
  rows: Array<Array<string | number>>;
}) {
  return (
    <table className="insights-table">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {head.map((name) => (
            <th key={name} scope="col">
              {name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={head.length} className="muted">
              Nothing in this range.
            </td>
          </tr>
        ) : (
          rows.map((row) => (
            <tr key={String(row[0])}>
              {row.map((cell, index) => (
                <td key={head[index]} className={typeof cell === "number" ? "numeric" : undefined}>
                  {cell}
                </td>
              ))}
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}
