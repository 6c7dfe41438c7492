import Link from "next/link";
import type { AuditPage } from "@/lib/server/lists/list-audit";
import type { AuditOutcome, AuditQuery } from "@/lib/wire/list-filters";
import { PageLinks } from "../ui/page-links";
import { Timestamp } from "../ui/timestamp";

const OUTCOME_LABELS: Record<AuditOutcome, string> = {
  approved: "Approved",
  denied: "Denied",
  expired: "Expired (nobody decided)",
  automatic: "Automatic (always allow)",
  voided: "Voided (the tool changed; not sent)",
  counted: "Approved, counted toward a quorum",
};

/** How a decision came, when not through the app's own controls (docs/notifications.md#decision-links). */
const VIA_LABELS = {
  link: "decision link",
  link_alone: "decision link, not signed in",
} as const;

/**
 * The approvals audit, newest first, as the append-only table holds it: who
 * decided which gate of which run, bound to which turn digest, with what
 * outcome and reason. Filters are a plain form; the CSV has every match.
 */
export function AuditList({ page, query }: { page: AuditPage; query: AuditQuery }) {
  const filters = { outcome: query.outcome, actor: query.actor, tool: query.tool, run: query.run };
  const isFiltered = Object.values(filters).some(Boolean);
  const csv = new URLSearchParams({ format: "csv" });
  for (const [key, value] of Object.entries(filters)) if (value) csv.set(key, value);
  return (
    <div className="list-page">
      <h1>Audit</h1>
      <p className="muted">
        Every decision on a gated call, every wait that expired, every call a grant let through and every
        approval voided because its tool changed before it was sent. Rows are only ever added.
      </p>
      <form className="list-filters" method="get" aria-label="Filter the audit">
        <label>
          Outcome
          <select name="outcome" defaultValue={query.outcome ?? ""}>
            <option value="">Any outcome</option>
            {Object.entries(OUTCOME_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Who
          <input
            type="search"
            name="actor"
            defaultValue={query.actor ?? ""}
            placeholder="Part of a name or email"
          />
        </label>
        <label>
          Tool
          <input type="search" name="tool" defaultValue={query.tool ?? ""} placeholder="write_file" />
        </label>
        <label>
          Run
          <input type="search" name="run" defaultValue={query.run ?? ""} placeholder="Name or id" />
        </label>
        <button type="submit">Filter</button>
        {isFiltered && <Link href="/audit">Clear</Link>}
        <a href={`/api/audit?${csv}`} download>
          Download CSV{isFiltered ? " of the matching rows" : ""}
        </a>
      </form>
      {page.items.length === 0 ? (
        <p className="muted">{isFiltered ? "No audit row matches." : "No decision has been made yet."}</p>
      ) : (
        <table className="list-table stack-on-phone">
          <caption className="visually-hidden">Audit rows, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Run</th>
              <th scope="col">Gate</th>
              <th scope="col">Outcome</th>
              <th scope="col">Through</th>
              <th scope="col">Turn digest</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((row) => (
              <tr key={row.id} data-outcome={row.outcome}>
                <td data-label="When">
                  <Timestamp at={row.decidedAt} />
                </td>
                <td data-label="Who">
                  {row.actor}
                  {row.actorEmail && <span className="muted"> ({row.actorEmail})</span>}
                </td>
                <td data-label="Run">
                  {row.runDeleted ? (
                    <>
                      {row.runName} <span className="archived-badge">Deleted</span>
                    </>
                  ) : (
                    <Link href={`/runs/${row.runId}`}>{row.runName}</Link>
                  )}{" "}
                  <code className="muted run-id">{row.runId.slice(0, 8)}</code>
                </td>
                <td data-label="Gate">
                  {row.batchIndex === null ? (
                    <span className="muted">—</span>
                  ) : (
                    <>
                      call {row.batchIndex} <code>{row.toolName}</code>
                      {row.scope === "turn" && <span className="tag">every gate</span>}
                      {row.editedDigest && <span className="tag">edited</span>}
                    </>
                  )}
                </td>
                <td data-label="Outcome">{OUTCOME_LABELS[row.outcome]}</td>
                <td data-label="Through" data-testid="audit-via">
                  {row.via && row.viaChannel ? (
                    <>
                      {VIA_LABELS[row.via]} <span className="muted">from</span> <code>{row.viaChannel}</code>
                    </>
                  ) : (
                    <span className="muted">the app</span>
                  )}
                </td>
                <td data-label="Turn digest">
                  <code className="digest" title={row.turnDigest}>
                    {row.turnDigest.slice(0, 12)}
                  </code>
                  <span className="visually-hidden"> (full: {row.turnDigest})</span>
                </td>
                <td data-label="Reason">{row.reason ?? <span className="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <PageLinks
        path="/audit"
        filters={filters}
        next={page.nextBefore ? { before: String(page.nextBefore) } : null}
        isFirstPage={!query.before}
      />
    </div>
  );
}
