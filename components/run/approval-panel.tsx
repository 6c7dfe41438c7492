"use client";

import { useId, useState } from "react";
import type { PendingTurnView, RunView } from "@/lib/runtime/view/run-view";
import { useCan } from "../auth/viewer-context";
import { DenyForm } from "../decisions/deny-form";
import { describeActionError } from "../decisions/describe-action-error";
import { EditArguments } from "../decisions/edit-arguments";
import { ExpiryCountdown } from "../decisions/expiry-countdown";
import { FileChangePreview } from "../decisions/file-change-preview";
import { BoundDefinition, shownDefinitionOf } from "../decisions/shown-tool-definition";
import { type DecideInput, useDecideTurn } from "../decisions/use-decide-turn";
import { JsonBlock } from "../ui/json-block";

/**
 * The pending turn and its decision (SPEC §5): what will run if approved, the
 * digest the decision is bound to, and every refusal in plain words. Besides
 * approve and deny-with-a-reply: edit the barrier's arguments, then approve;
 * approve every gate of the turn at once; always allow the barrier's tool for
 * the rest of the run.
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
            Step {pending.stepIndex + 1}.{" "}
            {pending.gates.length > 1
              ? `This turn has ${pending.gates.length} gates; gate 1 is the barrier.`
              : "The first call is the barrier."}{" "}
            The calls after it keep their original payloads and run only if it is approved and succeeds.
          </p>
          {pending.expiresAt && (
            <ExpiryCountdown expiresAt={pending.expiresAt} isExpiring={pending.isExpiring} />
          )}
          <dl className="digest">
            <dt>Turn digest</dt>
            <dd>
              <code>{pending.turnDigest}</code>
            </dd>
          </dl>
          <PendingCalls runId={view.runId} pending={pending} />
          {canDecide ? (
            <DecisionForm
              // A new turn starts with an empty form.
              key={pending.turnDigest}
              runId={view.runId}
              pending={pending}
              isPending={isPending}
              decide={(input) => {
                reset();
                decide(input);
              }}
            />
          ) : (
            <p className="muted">An approver decides this turn; your role can only watch it.</p>
          )}
        </>
      )}
    </section>
  );
}

function PendingCalls({ runId, pending }: { runId: string; pending: PendingTurnView }) {
  return (
    <ol className="pending-calls" aria-label="Pending calls">
      {pending.calls.map((call) => {
        const gate = pending.gates.indexOf(call.batchIndex);
        const shown = shownDefinitionOf(pending, call);
        return (
          <li key={call.batchIndex}>
            <span className="call-name">{call.name}</span>{" "}
            <span className="muted">call {call.batchIndex}</span>{" "}
            {gate >= 0 ? (
              <span className="tag tag-barrier">
                {pending.gates.length === 1
                  ? "barrier"
                  : `gate ${gate + 1} of ${pending.gates.length}${gate === 0 ? " · barrier" : ""}`}
              </span>
            ) : (
              <span className="tag">retained</span>
            )}
            <BoundDefinition call={call} shown={shown} isDetailed />
            {gate === 0 && <FileChangePreview runId={runId} call={call} />}
            <JsonBlock
              value={call.arguments}
              isRaw
              label={`arguments of pending ${call.name} call ${call.batchIndex}`}
            />
          </li>
        );
      })}
    </ol>
  );
}

function DecisionForm({
  runId,
  pending,
  isPending,
  decide,
}: {
  runId: string;
  pending: PendingTurnView;
  isPending: boolean;
  decide(input: DecideInput): void;
}) {
  const [isEditing, setIsEditing] = useState(false);
  const [alwaysAllow, setAlwaysAllow] = useState(false);
  const barrier = pending.calls[0];
  if (!barrier) return null;
  const approve = (variant: Pick<DecideInput, "editedArguments" | "scope"> = {}) =>
    decide({
      approve: true,
      turnDigest: pending.turnDigest,
      ...variant,
      ...(alwaysAllow ? { alwaysAllow } : {}),
    });

  return (
    <div className="decision-form">
      {/* An MCP server can change its tool at any time: each of its calls is approved against the definition shown. */}
      {!barrier.toolFingerprint && (
        <label className="checkbox">
          <input
            type="checkbox"
            checked={alwaysAllow}
            onChange={(event) => setAlwaysAllow(event.target.checked)}
          />
          Always allow {barrier.name} for the rest of this run
        </label>
      )}
      {isEditing ? (
        <EditArguments
          runId={runId}
          turnDigest={pending.turnDigest}
          call={barrier}
          isPending={isPending}
          onApprove={(editedArguments) => approve({ editedArguments })}
          onCancel={() => setIsEditing(false)}
        />
      ) : null}
      {/*
        The decision bar: fixed to the bottom of the screen while the run waits, so Approve is in view
        however long the turn's calls are and wherever the page is scrolled; in the flow while the
        arguments are edited (that form has its own approve button and needs the room).
      */}
      <div className="decision-bar" data-docked={isEditing ? undefined : "true"}>
        <p className="decision-bar-summary">
          <strong>Waiting for you:</strong> step {pending.stepIndex + 1}, {barrier.name} (call{" "}
          {barrier.batchIndex}){pending.calls.length > 1 ? ` and ${pending.calls.length - 1} more` : ""}
        </p>
        {!isEditing && (
          <div className="decision-actions">
            <button type="button" className="primary" disabled={isPending} onClick={() => approve()}>
              Approve
            </button>
            {pending.gates.length > 1 && (
              <button type="button" disabled={isPending} onClick={() => approve({ scope: "turn" })}>
                Approve all {pending.gates.length} gates in this turn
              </button>
            )}
            <button type="button" disabled={isPending} onClick={() => setIsEditing(true)}>
              Edit arguments, then approve
            </button>
          </div>
        )}
        <DenyForm
          isPending={isPending}
          onDeny={(reason) => decide({ approve: false, turnDigest: pending.turnDigest, reason })}
        />
        <span role="status" className="muted">
          {isPending ? "Sending your decision…" : ""}
        </span>
      </div>
    </div>
  );
}
