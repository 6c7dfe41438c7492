import Link from "next/link";
import { StatusBadge } from "../ui/status-badge";
import { Timestamp } from "../ui/timestamp";

export interface RecentRun {
  id: string;
  name: string;
  status: string;
  createdAt: string;
}

/** The last runs started on this database, so a run is one click away after you leave its page. */
export function RecentRuns({ runs }: { runs: RecentRun[] }) {
  return (
    <section className="panel recent-runs" aria-labelledby="recent-runs-heading">
      <h2 id="recent-runs-heading">Recent runs</h2>
      {runs.length === 0 ? (
        <p className="muted">None yet: start one above.</p>
      ) : (
        <ul>
          {runs.map((run) => (
            <li key={run.id}>
              <Link href={`/runs/${run.id}`}>{run.name}</Link> <StatusBadge status={run.status} />{" "}
              <Timestamp at={run.createdAt} className="muted" />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
