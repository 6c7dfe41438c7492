"use client";

import { useQueries } from "@tanstack/react-query";
import Link from "next/link";
import { runViewQueryOptions } from "@/lib/queries/query-options";
import type { RunView } from "@/lib/runtime/browser";
import { countWastedCompletions, sumUsage } from "@/lib/runtime/browser";
import { isTerminalStatus } from "@/lib/runtime/run/is-terminal-status";
import { StatusBadge } from "../ui/status-badge";

/** How often an unfinished run is read again while the page is open. */
const REFRESH_MS = 1_500;

/**
 * Two runs of one scenario side by side (usually under the two execution
 * policies): what each cost in completions, tokens, completions wasted on
 * refused or cut batches, wall time and calls executed, and each step's plan.
 * Refreshes while a run is still going or waiting for a decision.
 */
export function ComparePage({ initialViews }: { initialViews: RunView[] }) {
  const views = useQueries({
    queries: initialViews.map((initial) => ({
      ...runViewQueryOptions(initial.runId),
      initialData: initial,
      staleTime: 0,
      refetchInterval: (query: { state: { data?: RunView } }) =>
        query.state.data && isTerminalStatus(query.state.data.status) ? false : REFRESH_MS,
    })),
  })
    .map((result, index) => result.data ?? initialViews[index])
    .filter((view): view is RunView => view !== undefined);
  const rows: Array<[string, (view: RunView) => string]> = [
    ["Status", (view) => view.status],
    ["Completions", (view) => String(view.modelCalls)],
    ["Completions wasted on refused or cut batches", (view) => String(countWastedCompletions(view.steps))],
    ["Tokens", (view) => String(sumUsage(view.steps)?.totalTokens ?? "— (not reported)")],
    ["Calls executed", (view) => String(executed(view))],
    ["Wall time", (view) => wallTime(view)],
  ];
  return (
    <div className="compare-page">
      <h1>Compare runs</h1>
      <p className="muted">
        Each run waits for you at its gates; open it to decide. This page follows both until they end.
      </p>
      <table className="compare" aria-label="Runs side by side">
        <thead>
          <tr>
            <th scope="col">Figure</th>
            {views.map((view) => (
              <th scope="col" key={view.runId}>
                <Link href={`/runs/${view.runId}`}>{view.name}</Link> <StatusBadge status={view.status} />
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(([label, value]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              {views.map((view) => (
                <td key={view.runId}>{value(view)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="compare-plans">
        {views.map((view) => (
          <section key={view.runId} className="panel" aria-label={`Plans of ${view.name}`}>
            <h2>{view.name}</h2>
            <ol>
              {view.steps.map((step) => (
                <li key={step.index}>
                  Step {step.index + 1}: {describePlan(step.plan, step.calls.length)}
                </li>
              ))}
            </ol>
          </section>
        ))}
      </div>
    </div>
  );
}

function executed(view: RunView): number {
  return view.steps.flatMap((step) => step.calls).filter((call) => call.status === "ok").length;
}

function wallTime(view: RunView): string {
  const first = view.log[0];
  const last = view.log.at(-1);
  if (!first || !last) return "—";
  const ms = Date.parse(last.at) - Date.parse(first.at);
  const time = ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
  return isTerminalStatus(view.status) ? time : `${time} so far`;
}

const callWord = (calls: number) => (calls === 1 ? "1 call" : `${calls} calls`);

function describePlan(plan: RunView["steps"][number]["plan"], calls: number): string {
  if (plan.kind === "repair")
    return `${callWord(calls)} sent back (${plan.problems.map((problem) => problem.code).join(", ")})`;
  const waves = plan.segments.filter((segment) => segment.kind === "wave").length;
  const barriers = plan.segments.length - waves;
  const cut = plan.problems.filter((problem) => problem.code === "legacy_cut_after_gate").length;
  return `${callWord(calls)} in ${waves} wave${waves === 1 ? "" : "s"} and ${barriers} barrier${barriers === 1 ? "" : "s"}${cut ? `, ${cut} cut after the gate` : ""}`;
}
