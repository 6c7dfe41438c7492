"use client";

import { useId, useState } from "react";
import type { RunView } from "@/lib/run-view/run-view";
import { describeActionError } from "../decisions/describe-action-error";
import { useDecideTurn } from "../decisions/use-decide-turn";
import { JsonBlock } from "../ui/json-block";

/**
 * The pending turn and its decision (SPEC §5): what will run if approved, the
 * digest the decision is bound to, and every refusal in plain words.
 */
export function ApprovalPanel({ view }: { view: RunView }) {
  const { decide, isPending, refusal, lastInput, reset } = useDecideTurn(view.runId);
  const [reason, setReason] = useState("");
  const reasonId = useId();
  const headingId = useId();
  const pending = view.pending;
  if (!pending && !refusal) return null;
  const explained = refusal ? describeActionError(refusal) : null;

  return (
    <section className="panel approval-panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{pending ? "Approval needed" : "Decision"}</h2>
      {explained && (
        <div className="alert" role="alert" data-code={refusal?.code}>
          <strong>{explained.title}.</strong> {explained.detail}
          {explained.canRetry && lastInput && (
            <button type="button" onClick={() => decide(lastInput)} disabled={isPending}>
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
                <JsonBlock value={call.arguments} isRaw />
              </li>
            ))}
          </ol>
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
            <div className="deny-group">
              <label htmlFor={reasonId}>Reason for denying</label>
              <input
                id={reasonId}
                value={reason}
                onChange={(event) => setReason(event.target.value)}
                maxLength={2000}
                placeholder="Optional; the model sees it"
              />
              <button
                type="button"
                className="danger"
                disabled={isPending}
                onClick={() => {
                  reset();
                  decide({ approve: false, turnDigest: pending.turnDigest, reason });
                }}
              >
                Deny
              </button>
            </div>
            <span role="status" className="muted">
              {isPending ? "Sending your decision…" : ""}
            </span>
          </div>
        </>
      )}
    </section>
  );
}
