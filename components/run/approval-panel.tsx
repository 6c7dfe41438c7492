"use client";

import { useId, useState } from "react";
import type { PendingTurnView, RunView } from "@/lib/runtime/browser";
import { describeEscalationGroup } from "@/lib/wire/describe-escalation-group";
import { useCan } from "../auth/viewer-context";
import { DenyForm } from "../decisions/deny-form";
import { EditArguments } from "../decisions/edit-arguments";
import { ExpiryCountdown } from "../decisions/expiry-countdown";
import { FileChangePreview } from "../decisions/file-change-preview";
import { EMPTY_GRANT_DRAFT, type GrantDraft, GrantForm, toGrantRequest } from "../decisions/grant-form";
import { needsSeveralApprovers, QuorumProgress } from "../decisions/quorum-progress";
import { RefusalAlert } from "../decisions/refusal-alert";
import { BoundDefinition, shownDefinitionOf } from "../decisions/shown-tool-definition";
import { type DecideInput, useDecideTurn } from "../decisions/use-decide-turn";
import { JsonBlock } from "../ui/json-block";

/**
 * The pending turn and its decision (docs/decisions.md#what-happens-to-a-decision-in-order): what will
 * run if approved, the digest the decision is bound to, and every refusal in plain words. Besides
 * approve and deny-with-a-reply: edit the barrier's arguments, then approve; approve every gate of the
 * turn at once; give a scoped grant of the barrier's tool (docs/policies.md#grants).
 */
export function ApprovalPanel({ view }: { view: RunView }) {
  const { decide, isPending, refusal, lastInput, reset } = useDecideTurn(view.runId);
  const headingId = useId();
  const canDecide = useCan("approver");
  const pending = view.pending;
  if (!pending && !refusal) return null;

  return (
    <section className="panel approval-panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{pending ? "Approval needed" : "Decision"}</h2>
      <RefusalAlert
        refusal={refusal}
        lastInput={lastInput}
        pendingDigest={pending?.turnDigest}
        isPending={isPending}
        onRetry={decide}
      />
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
          {pending.escalations.length > 0 && (
            <ul className="muted" aria-label="Escalations">
              {pending.escalations.map((escalation) => (
                <li key={escalation.seq}>
                  Escalated (step {escalation.step} of {escalation.steps}, after {escalation.afterMinutes}{" "}
                  min) to {describeEscalationGroup(escalation.to)} through “{escalation.channel}” at{" "}
                  <time dateTime={escalation.at}>{new Date(escalation.at).toLocaleTimeString()}</time>.
                </li>
              ))}
            </ul>
          )}
          <QuorumProgress pending={pending} />
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
              isPolicyGated={isPolicyGated(view, pending)}
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
  isPolicyGated,
  isPending,
  decide,
}: {
  runId: string;
  pending: PendingTurnView;
  /** A policy rule gated the barrier: it stays the rule's, and no grant is offered. */
  isPolicyGated: boolean;
  isPending: boolean;
  decide(input: DecideInput): void;
}) {
  const [isEditing, setIsEditing] = useState(false);
  const [grant, setGrant] = useState<GrantDraft>(EMPTY_GRANT_DRAFT);
  const barrier = pending.calls[0];
  if (!barrier) return null;
  const grantRequest = toGrantRequest(grant);
  const approve = (variant: Pick<DecideInput, "editedArguments" | "scope"> = {}) =>
    decide({
      approve: true,
      turnDigest: pending.turnDigest,
      ...variant,
      ...(grantRequest ? { grant: grantRequest } : {}),
    });

  return (
    <div className="decision-form">
      {/* A call a policy rule decided stays the rule's, and a turn that needs several approvers grants nothing. */}
      {!isPolicyGated && !needsSeveralApprovers(pending) && (
        <GrantForm
          toolName={barrier.name}
          isBoundToDefinition={Boolean(barrier.toolFingerprint)}
          draft={grant}
          onChange={setGrant}
        />
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
            {pending.gates.length > 1 && !needsSeveralApprovers(pending) && (
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

/** Whether a policy rule, not the tool's declaration, gated the barrier (docs/policies.md#grants). */
function isPolicyGated(view: RunView, pending: PendingTurnView): boolean {
  const barrier = pending.calls[0];
  const step = view.steps.find((each) => each.index === pending.stepIndex);
  return Boolean(step?.calls.find((call) => call.batchIndex === barrier?.batchIndex)?.policy);
}
