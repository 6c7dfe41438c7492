import type { RunView } from "@/lib/runtime/view/run-view";

/** Every event the page has folded, by seq: a gap or a repeat here would be a bug. */
export function EventLog({ log }: { log: RunView["log"] }) {
  return (
    <details className="panel event-log">
      <summary>Event log ({log.length})</summary>
      <ol aria-label="Event log">
        {log.map((entry) => (
          <li key={entry.seq} data-seq={entry.seq}>
            <span className="numeric">{entry.seq}</span> <code>{entry.type}</code>{" "}
            <time dateTime={entry.at} className="muted">
              {entry.at.slice(11, 23)}
            </time>
          </li>
        ))}
      </ol>
    </details>
  );
}
