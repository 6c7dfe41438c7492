import Link from "next/link";
import { RUN_STATUSES } from "@/lib/runtime/run/run-types";
import type { RunListPage } from "@/lib/server/lists/list-runs";
import type { RunListQuery } from "@/lib/wire/list-filters";
import { PageLinks } from "../ui/page-links";
import { describeStatus, StatusBadge } from "../ui/status-badge";
import { Timestamp } from "../ui/timestamp";

/**
 * Every run on this database, newest first: a plain form filters it (it works
 * before any script loads, and the address keeps the filter), links page it.
 */
export function RunsList({ page, query }: { page: RunListPage; query: RunListQuery }) {
  const filters = { status: query.status, q: query.q, archived: query.archived };
  const isFiltered = Boolean(query.status || query.q || query.archived);
  return (
    <div className="list-page">
      <h1>Runs</h1>
      <form className="list-filters" method="get" aria-label="Filter runs">
        <label>
          Status
          <select name="status" defaultValue={query.status ?? ""}>
            <option value="">Any status</option>
            {RUN_STATUSES.map((status) => (
              <option key={status} value={status}>
                {describeStatus(status)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Archived
          <select name="archived" defaultValue={query.archived ?? ""}>
            <option value="">Hidden</option>
            <option value="include">Shown too</option>
            <option value="only">Only archived</option>
          </select>
        </label>
        <label className="list-search">
          Search
          <input
            type="search"
            name="q"
            defaultValue={query.q ?? ""}
            placeholder="Name, who started it, or id"
          />
        </label>
        <button type="submit">Filter</button>
        {isFiltered && <Link href="/runs">Clear</Link>}
      </form>
      <p className="muted" aria-live="polite">
        {page.total === 0
          ? isFiltered
            ? "No run matches."
            : "No runs yet: start one in the playground."
          : `${page.totalCapped ? "More than " : ""}${page.total.toLocaleString("en")} run${page.total === 1 ? "" : "s"}${isFiltered ? " match" : ""}, newest first.`}
      </p>
      {page.items.length > 0 && (
        <table className="list-table stack-on-phone">
          <caption className="visually-hidden">Runs, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Started by</th>
              <th scope="col">Started</th>
              <th scope="col">Steps</th>
              <th scope="col">Completions</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((run) => (
              <tr key={run.id}>
                <td data-label="Run">
                  <Link href={`/runs/${run.id}`}>{run.name}</Link>{" "}
                  <code className="muted run-id">{run.id.slice(0, 8)}</code>
                  {run.archivedAt && (
                    <>
                      {" "}
                      <span className="badge archived-badge">Archived</span>
                    </>
                  )}
                </td>
                <td data-label="Status">
                  <StatusBadge status={run.status} />
                </td>
                <td data-label="Started by">{run.startedBy ?? <span className="muted">—</span>}</td>
                <td data-label="Started">
                  <Timestamp at={run.createdAt} />
                </td>
                <td data-label="Steps" className="numeric">
                  {run.steps}
                </td>
                <td data-label="Completions" className="numeric">
                  {run.completions}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <PageLinks
        path="/runs"
        filters={filters}
        next={page.nextCursor ? { after: page.nextCursor } : null}
        isFirstPage={!query.after}
      />
    </div>
  );
}
