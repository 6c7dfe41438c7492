import type { RunView } from "@/lib/runtime/browser";
import { JsonBlock } from "../ui/json-block";
import { Timestamp } from "../ui/timestamp";

/** Every event the page has folded, by seq (a gap or a repeat here would be a bug); each opens to its payload. */
export function EventLog({ log }: { log: RunView["log"] }) {
  return (
    <details className="panel event-log">
      <summary>Event log ({log.length})</summary>
      <ol aria-label="Event log">
        {log.map((entry) => (
          <li key={entry.seq} data-seq={entry.seq}>
            <details>
              <summary>
                <span className="numeric">{entry.seq}</span> <code>{entry.type}</code>{" "}
                <Timestamp at={entry.at} className="muted" />
                <span className="visually-hidden"> payload</span>
              </summary>
              <JsonBlock value={entry.payload} label={`payload of event ${entry.seq}, ${entry.type}`} />
            </details>
          </li>
        ))}
      </ol>
    </details>
  );
}
