"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { postJson } from "@/lib/queries/fetch-json";
import type { BacktestResult, BacktestRow } from "@/lib/runtime";
import { callHref } from "../run/call-anchor";

type Backtest = BacktestResult & { truncated: boolean };

const DAY_MS = 24 * 60 * 60 * 1000;

/** A `datetime-local` value for `date` in the browser's zone (the input has no zone of its own). */
function toLocalInput(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/**
 * Runs the editor's document over recorded runs (docs/policies.md#backtest): a time range, a tool
 * and some runs; answers the totals, the approver workload per day before and after, and each
 * call whose outcome would change, linked to the call on its run page.
 */
export function PolicyBacktest({ document }: { document: string }) {
  const formId = useId();
  const [since, setSince] = useState(() => toLocalInput(new Date(Date.now() - 7 * DAY_MS)));
  const [until, setUntil] = useState("");
  const [tool, setTool] = useState("");
  const [runs, setRuns] = useState("");
  const backtest = useMutation({
    mutationFn: () => {
      const runIds = runs.split(/[\s,]+/).filter((id) => id !== "");
      return postJson<Backtest>("/api/policies/backtest", {
        document,
        since: new Date(since).toISOString(),
        ...(until ? { until: new Date(until).toISOString() } : {}),
        ...(tool.trim() ? { tool: tool.trim() } : {}),
        ...(runIds.length > 0 ? { runIds } : {}),
      });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    backtest.mutate();
  };
  return (
    <section className="panel" aria-labelledby={`${formId}-heading`}>
      <h2 id={`${formId}-heading`}>Backtest</h2>
      <p className="muted">
        What the policy in the editor would have done with the calls already recorded. Nothing is stored or
        decided.
      </p>
      <form className="backtest-form" onSubmit={submit} aria-label="Backtest">
        <label className="backtest-field">
          From
          <input
            type="datetime-local"
            required
            value={since}
            onChange={(event) => setSince(event.target.value)}
          />
        </label>
        <label className="backtest-field">
          Until (empty: now)
          <input type="datetime-local" value={until} onChange={(event) => setUntil(event.target.value)} />
        </label>
        <label className="backtest-field">
          Tool (empty: every tool)
          <input
            type="text"
            value={tool}
            placeholder="write_file"
            onChange={(event) => setTool(event.target.value)}
          />
        </label>
        <label className="backtest-field">
          Runs (ids, empty: every run)
          <textarea rows={2} value={runs} onChange={(event) => setRuns(event.target.value)} />
        </label>
        <button type="submit" disabled={backtest.isPending}>
          {backtest.isPending ? "Backtesting…" : "Backtest"}
        </button>
      </form>
      {backtest.isError && (
        <div className="alert" role="alert">
          <strong>The backtest did not run.</strong> {backtest.error.message}
        </div>
      )}
      {backtest.data && <BacktestOutcome result={backtest.data} />}
    </section>
  );
}

function BacktestOutcome({ result }: { result: Backtest }) {
  const { totals, workload } = result;
  const differences = result.rows.filter((row) => row.recorded !== row.candidate);
  return (
    <div className="backtest-result" aria-live="polite">
      <dl className="metrics" aria-label="Backtest totals">
        <Total term="Calls replayed" value={totals.calls} />
        <Total term="Approvals no longer asked" value={totals.approvalsNoLongerAsked} />
        <Total term="Calls denied" value={totals.denied} />
        <Total term="Calls newly gated" value={totals.newlyGated} />
        <Total term="Waits needing a second approver" value={totals.waitsNeedingSecondApprover} />
      </dl>
      {result.truncated && (
        <p className="muted">
          Only the most recently active runs were replayed: narrow the range to see all.
        </p>
      )}
      <h3>Approver workload per day</h3>
      {workload.length === 0 ? (
        <p className="muted">No calls were recorded in this range.</p>
      ) : (
        <table className="stack-on-phone" aria-label="Approver workload per day">
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Approvals asked then</th>
              <th scope="col">With this policy</th>
            </tr>
          </thead>
          <tbody>
            {workload.map((day) => (
              <tr key={day.day}>
                <td data-label="Day">{day.day}</td>
                <td data-label="Then" className="numeric">
                  {day.before}
                </td>
                <td data-label="With this policy" className="numeric">
                  {day.after}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Differences ({differences.length})</h3>
      {differences.length === 0 ? (
        <p className="muted">Every call would have gone as it did.</p>
      ) : (
        <ul aria-label="Backtest differences" className="call-links">
          {differences.map((row) => (
            <li key={`${row.runId}:${row.step}:${row.batchIndex}`}>
              <CallLink row={row} /> <code>{row.toolName}</code>: {row.recorded} → {row.candidate}
              {row.rule ? ` by rule ${row.rule}` : " by the declaration"}
              {row.quorum !== null && row.quorum > 1 ? `, ${row.quorum} approvers` : ""}
              {row.error ? ` (${row.error})` : ""}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * "run 1a2b3c4d, step 2, call 0", to the call on its run page. A plain link: a whole navigation makes
 * the browser scroll to the call and mark it `:target`, which a client-side push does not.
 */
export function CallLink({ row }: { row: Pick<BacktestRow, "runId" | "step" | "batchIndex"> }) {
  return (
    <a href={callHref(row.runId, row.step, row.batchIndex)}>
      run {row.runId.slice(0, 8)}, step {row.step}, call {row.batchIndex}
    </a>
  );
}

function Total({ term, value }: { term: string; value: number }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{value}</dd>
    </div>
  );
}
