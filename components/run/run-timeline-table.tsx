import type { BarOutcome, RunTimeline as Timeline } from "@/lib/runtime/view/run-timeline";
import { formatSpan as formatDuration } from "../ui/format-duration";

export const OUTCOME_LABELS: Record<BarOutcome, string> = {
  running: "running",
  ok: "ok",
  error: "error",
  cancelled: "cancelled",
  interrupted: "interrupted",
  expired: "expired",
};

/** The picture's story as rows, for screen readers and for reading exact numbers. */
export function TimelineTable({ timeline }: { timeline: Timeline }) {
  const rows = [
    ...timeline.completions.map((completion) => ({
      key: `c${completion.stepIndex}`,
      start: completion.start,
      step: completion.stepIndex,
      what: "Model completion",
      lasted: completion.end - completion.start,
      outcome: completion.totalTokens === null ? "—" : `${completion.totalTokens} tokens`,
    })),
    ...timeline.groups.flatMap((group) =>
      group.bars.map((bar) => ({
        key: `b${bar.stepIndex}-${bar.batchIndex}-${bar.start}`,
        start: bar.start,
        step: bar.stepIndex,
        what: `${bar.name} #${bar.batchIndex} (${group.kind === "wave" ? `wave ${group.ordinal + 1}` : "barrier"})`,
        lasted: bar.end - bar.start,
        outcome:
          OUTCOME_LABELS[bar.outcome] +
          (bar.errorCode && bar.outcome === "error" ? ` (${bar.errorCode})` : ""),
      })),
    ),
    ...timeline.waits.map((wait, index) => ({
      key: `w${index}`,
      start: wait.start,
      step: wait.stepIndex,
      what: "Waiting for a person",
      lasted: wait.end - wait.start,
      outcome: wait.open ? "still waiting" : `ended by ${wait.endedBy ?? "the run"}`,
    })),
    ...timeline.markers.map((marker, index) => ({
      key: `m${index}`,
      start: marker.at,
      step: marker.stepIndex,
      what:
        marker.kind === "finished"
          ? "Run ended"
          : marker.kind === "recovered"
            ? "Recovered"
            : marker.kind === "escalated"
              ? "Escalation"
              : "Decision",
      lasted: null,
      outcome: marker.label,
    })),
    ...timeline.cut.map((call) => ({
      key: `x${call.stepIndex}-${call.batchIndex}`,
      start: call.at,
      step: call.stepIndex,
      what: `${call.name} #${call.batchIndex}`,
      lasted: null,
      outcome: `never ran (${call.status})`,
    })),
  ].sort((a, b) => a.start - b.start);
  return (
    <details className="run-timeline-table">
      <summary>Timeline as a table ({rows.length} rows)</summary>
      <section
        className="run-timeline-scroll"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls sideways must be reachable by keyboard to be scrolled (axe: scrollable-region-focusable)
        tabIndex={0}
        aria-label="Timeline table, scrolls sideways"
      >
        <table>
          <caption className="visually-hidden">Everything on the timeline, in time order</caption>
          <thead>
            <tr>
              <th scope="col">At</th>
              <th scope="col">Step</th>
              <th scope="col">What</th>
              <th scope="col">Lasted</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key}>
                <td className="numeric">{formatDuration(row.start)}</td>
                <td className="numeric">{row.step === null ? "—" : row.step + 1}</td>
                <td>{row.what}</td>
                <td className="numeric">{row.lasted === null ? "—" : formatDuration(row.lasted)}</td>
                <td>{row.outcome}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </details>
  );
}
