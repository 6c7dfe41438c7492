"use client";

import { useId } from "react";
import type { RunView } from "@/lib/runtime/view/run-view";
import { useCan } from "../auth/viewer-context";
import { DenyForm } from "../decisions/deny-form";
import { describeActionError } from "../decisions/describe-action-error";
import { useDecideTurn } from "../decisions/use-decide-turn";
import { JsonBlock } from "../ui/json-block";

/**
 * The pending turn and its decision (SPEC §5): what will run if approved, the
 * digest the decision is bound to, and every refusal in plain words.
 */
export function ApprovalPanel({ view }: { view: RunView }) {
  const { decide, isPending, refusal, lastInput, reset } = useDecideTurn(view.runId);
  const headingId = useId();
  const canDecide = useCan("approver");
  const pending = view.pending;
  if (!pending && !refusal) return null;
  const explained = refusal ? describeActionError(refusal) : null;
  // A retry resends the same decision, so only while that turn is still the one pending.
  const retry = explained?.canRetry && lastInput?.turnDigest === pending?.turnDigest ? lastInput : undefined;

  return (
    <section className="panel approval-panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{pending ? "Approval needed" : "Decision"}</h2>
      {explained && (
        <div className="alert" role="alert" data-code={refusal?.code}>
          <strong>{explained.title}.</strong> {explained.detail}
          {retry && (
            <button type="button" onClick={() => decide(retry)} disabled={isPending}>
              Retry
            </button>
          )}
        </div>
      )}
      {pending && (
        <>
          <p className="muted">
            Step {pending.stepIndex + 1}. The first call is the barrier; the calls after it keep their
            original payloads and run only if it is approved and succeeds.
          </p>
          <dl className="digest">
            <dt>Turn digest</dt>
            <dd>
              <code>{pending.turnDigest}</code>
            </dd>
          </dl>
          <ol className="pending-calls" aria-label="Pending calls">
            {pending.calls.map((call, position) => (
              <li key={call.batchIndex}>
                <span className="call-name">{call.name}</span>{" "}
                <span className="muted">call {call.batchIndex}</span>{" "}
                {position === 0 ? (
                  <span className="tag tag-barrier">barrier</span>
                ) : (
                  <span className="tag">retained</span>
                )}
                <JsonBlock
                  value={call.arguments}
                  isRaw
                  label={`arguments of pending ${call.name} call ${call.batchIndex}`}
                />
              </li>
            ))}
          </ol>
          {canDecide ? (
            <div className="decision-actions">
              <button
                type="button"
                className="primary"
                disabled={isPending}
                onClick={() => {
                  reset();
                  decide({ approve: true, turnDigest: pending.turnDigest });
                }}
              >
                Approve
              </button>
              <DenyForm
                // A new turn starts with an empty reason.
                key={pending.turnDigest}
                isPending={isPending}
                onDeny={(reason) => {
                  reset();
                  decide({ approve: false, turnDigest: pending.turnDigest, reason });
                }}
              />
              <span role="status" className="muted">
                {isPending ? "Sending your decision…" : ""}
              </span>
            </div>
          ) : (
            <p className="muted">An approver decides this turn; your role can only watch it.</p>
          )}
        </>
      )}
    </section>
  );
}
