import type { DecisionView } from "@/lib/runtime/browser";
import { Timestamp } from "../ui/timestamp";

/**
 * Every decision on the run, from its events: who, when, on which turn
 * (digest), what (approve, edit-and-approve, approve every gate, always
 * allow, deny with a reply, expired, voided) and why. An expiry is never a
 * denial; a voided approval's call was never sent.
 */
export function DecisionHistory({ decisions }: { decisions: DecisionView[] }) {
  if (decisions.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="decision-history-heading">
      <h2 id="decision-history-heading">Decisions</h2>
      <ol className="decision-history" aria-label="Decisions">
        {decisions.map((decision) => (
          <li key={decision.seq} data-outcome={decision.outcome}>
            <strong>{describeDecision(decision)}</strong>
            {decision.kind === "decision" ? ` by ${decision.actor}` : ""} <Timestamp at={decision.at} />, step{" "}
            {decision.stepIndex + 1}, turn{" "}
            <code title={decision.turnDigest}>{decision.turnDigest.slice(0, 12)}…</code>
            {decision.reason && <>: “{decision.reason}”</>}
            {decision.editedArguments && (
              <div>
                Ran with <code className="inline-args">{decision.editedArguments}</code>
              </div>
            )}
            {!decision.audited && <span className="muted"> (the audit record could not be stored)</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** A decision in a few words: what was decided, and how. */
export function describeDecision(decision: DecisionView): string {
  if (decision.kind === "expiry") return "Expired: nobody decided in time";
  if (decision.kind === "voided") return "Approval voided: the tool changed before it was sent";
  if (!decision.approve) return decision.reason ? "Denied with a reply" : "Denied";
  const how = [
    decision.editedArguments !== null ? "with edited arguments" : null,
    decision.scope === "turn" ? `all ${decision.gates.length} gates of the turn` : null,
    decision.allowTool !== null ? `and always allowed ${decision.allowTool} for this run` : null,
  ].filter((part) => part !== null);
  return how.length > 0 ? `Approved ${how.join(", ")}` : "Approved";
}
