import Link from "next/link";
import type { EscalationEntry } from "@/lib/server/lists/list-escalations";
import { describeEscalationGroup } from "@/lib/wire/describe-escalation-group";
import { Timestamp } from "../ui/timestamp";

/**
 * The latest escalation steps that fired (docs/notifications.md#escalation): which run's wait, on
 * which channel's chain, which step of how many, and the group it told. An escalation decides
 * nothing, so it is listed beside the decisions, not among them. `run` is the audit's run filter,
 * which narrows these too; the CSV has every match.
 */
export function EscalationsList({ escalations, run }: { escalations: EscalationEntry[]; run?: string }) {
  const csv = new URLSearchParams({ format: "csv", ...(run ? { run } : {}) });
  return (
    <section className="panel" aria-labelledby="escalations-heading">
      <h2 id="escalations-heading">Escalations</h2>
      {escalations.length === 0 ? (
        <p className="muted">{run ? "No escalation of a matching run." : "No wait has escalated yet."}</p>
      ) : (
        <>
          <p>
            <a href={`/api/audit/escalations?${csv}`} download>
              Download CSV{run ? " of the matching escalations" : " of every escalation"}
            </a>
          </p>
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
        </>
      )}
    </section>
  );
}
