import Link from "next/link";
import type { EscalationEntry } from "@/lib/server/lists/list-escalations";
import { describeEscalationGroup } from "@/lib/wire/describe-escalation-group";
import { Timestamp } from "../ui/timestamp";

/**
 * The latest escalation steps that fired (docs/notifications.md#escalation): which run's wait, on
 * which channel's chain, which step of how many, and the group it told. An escalation decides
 * nothing, so it is listed beside the decisions, not among them.
 */
export function EscalationsList({ escalations }: { escalations: EscalationEntry[] }) {
  return (
    <section className="panel" aria-labelledby="escalations-heading">
      <h2 id="escalations-heading">Escalations</h2>
      {escalations.length === 0 ? (
        <p className="muted">No wait has escalated yet.</p>
      ) : (
        <table aria-label="Escalations" className="list-table stack-on-phone">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Run</th>
              <th scope="col">Channel</th>
              <th scope="col">Step</th>
              <th scope="col">Told</th>
            </tr>
          </thead>
          <tbody>
            {escalations.map((escalation) => (
              <tr key={escalation.id}>
                <td data-label="When">
                  <Timestamp at={escalation.firedAt} />
                </td>
                <td data-label="Run">
                  <Link href={`/runs/${escalation.runId}`}>{escalation.runName}</Link>{" "}
                  <code className="muted run-id">{escalation.turnDigest.slice(0, 12)}</code>
                </td>
                <td data-label="Channel">
                  <code>{escalation.channel}</code>
                </td>
                <td data-label="Step">
                  {escalation.step} of {escalation.steps}, after {escalation.afterMinutes} min
                </td>
                <td data-label="Told">{describeEscalationGroup(escalation.to)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
