import type { DecisionView } from "@/lib/runtime/view/run-view";

/** Every decision on the run, from the audit's events: who, when, what, and why. */
export function DecisionHistory({ decisions }: { decisions: DecisionView[] }) {
  if (decisions.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="decision-history-heading">
      <h2 id="decision-history-heading">Decisions</h2>
      <ol className="decision-history" aria-label="Decisions">
        {decisions.map((decision) => (
          <li key={decision.seq}>
            <strong>{decision.approve ? "Approved" : "Denied"}</strong> by {decision.actor}{" "}
            <time dateTime={decision.at}>{new Date(decision.at).toLocaleString()}</time>, step{" "}
            {decision.stepIndex + 1}
            {decision.reason && <>: “{decision.reason}”</>}
            {!decision.audited && <span className="muted"> (the audit record could not be stored)</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}
