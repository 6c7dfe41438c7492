import type { CallView, PendingTurnView, StepView } from "@/lib/runtime/browser";
import { describeCallState } from "../ui/describe-call-state";
import { JsonBlock } from "../ui/json-block";
import { callAnchorId } from "./call-anchor";

/** Every call of a step in batch order: its live state, class, and its arguments and result on demand. */
export function CallTable({ step, pending }: { step: StepView; pending: PendingTurnView | null }) {
  const waitingAt = pending?.stepIndex === step.index ? pending.calls[0]?.batchIndex : undefined;
  return (
    <table className="calls stack-on-phone" aria-label={`Calls of step ${step.index + 1}`}>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Tool</th>
          <th scope="col">State</th>
          <th scope="col">Class</th>
          <th scope="col">Arguments and result</th>
        </tr>
      </thead>
      <tbody>
        {step.calls.map((call) => (
          <CallRow
            key={call.batchIndex}
            anchorId={callAnchorId(step.index, call.batchIndex)}
            call={call}
            isAwaitingApproval={waitingAt === call.batchIndex}
          />
        ))}
      </tbody>
    </table>
  );
}

/** How long a call ran, from its start and settle events. */
function formatCallDuration(startedAt: string, settledAt: string): string {
  const ms = Math.max(0, Date.parse(settledAt) - Date.parse(startedAt));
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

function CallRow({
  anchorId,
  call,
  isAwaitingApproval,
}: {
  anchorId: string;
  call: CallView;
  isAwaitingApproval: boolean;
}) {
  const state = describeCallState(call, isAwaitingApproval);
  const problem = call.error;
  return (
    <tr
      id={anchorId}
      aria-label={`${call.name} call ${call.batchIndex}: ${state.text}`}
      data-state={call.status}
    >
      <td className="numeric" data-label="#">
        {call.batchIndex}
      </td>
      <td data-label="Tool">
        <span className="call-name">{call.name}</span>
        {call.isGated && <span className="tag tag-barrier">gated</span>}
        {call.allowedBy && <span className="tag">allowed by {call.allowedBy.actor}</span>}
        {call.editedArguments !== null && <span className="tag">edited</span>}
      </td>
      <td data-label="State">
        <span className="state" data-state={state.tone}>
          {state.text}
        </span>
        {call.startedAt && call.settledAt && (
          <span className="muted call-duration"> {formatCallDuration(call.startedAt, call.settledAt)}</span>
        )}
        {call.status === "running" && call.progress && <CallProgress call={call} />}
        {problem && <div className="call-error">{problem.message}</div>}
      </td>
      <td className="muted" data-label="Class">
        {call.resourceClass ?? "—"}
      </td>
      <td data-label="Details">
        <details>
          <summary>
            View
            <span className="visually-hidden">
              {" "}
              arguments and result of {call.name} call {call.batchIndex}
            </span>
          </summary>
          <h4>{call.editedArguments === null ? "Arguments" : "Arguments as the model sent them"}</h4>
          <JsonBlock
            value={call.arguments}
            isRaw
            label={`arguments of ${call.name} call ${call.batchIndex}`}
          />
          {call.editedArguments !== null && (
            <>
              <h4>Arguments it ran with (edited before approval)</h4>
              <JsonBlock
                value={call.editedArguments}
                isRaw
                label={`edited arguments of ${call.name} call ${call.batchIndex}`}
              />
            </>
          )}
          {call.result !== null && call.result !== undefined && (
            <>
              <h4>Result</h4>
              <JsonBlock value={call.result} label={`result of ${call.name} call ${call.batchIndex}`} />
            </>
          )}
        </details>
      </td>
    </tr>
  );
}

/** A running call's latest progress report: a bar when its total is known, and what it is doing. */
function CallProgress({ call }: { call: CallView }) {
  if (!call.progress) return null;
  const { progress, total, message } = call.progress;
  const label = `progress of ${call.name} call ${call.batchIndex}`;
  return (
    <div className="call-progress">
      {total !== null && total > 0 ? (
        <progress value={Math.min(progress, total)} max={total} aria-label={label} />
      ) : null}{" "}
      <span className="muted">
        {total !== null ? `${progress} of ${total}` : `${progress}`}
        {message ? `: ${message}` : ""}
      </span>
    </div>
  );
}
