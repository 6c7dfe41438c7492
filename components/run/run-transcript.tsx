import { useMemo } from "react";
import type { RunView } from "@/lib/runtime/events/run-view";
import type { DraftView } from "@/lib/runtime/model/completion-drafts";
import { buildRunTranscript, type TranscriptItem } from "@/lib/runtime/view/run-transcript";
import { describeCallState } from "../ui/describe-call-state";
import { JsonBlock } from "../ui/json-block";
import { StatusBadge } from "../ui/status-badge";
import { Timestamp } from "../ui/timestamp";
import { describeDecision } from "./decision-history";

/**
 * The run as a conversation: the model's messages, each tool call with its
 * outcome, and the approver's decisions and replies, in order. Built from the
 * page's one view, so it is live with the same stream as the plan view.
 */
export function RunTranscript({ view, draft = null }: { view: RunView; draft?: DraftView | null }) {
  const items = useMemo(() => buildRunTranscript(view), [view]);
  // Shown until the step's own event lands (docs/transcript-and-fork.md#streamed-output).
  const shownDraft = draft && !view.steps.some((step) => step.index === draft.step) ? draft : null;
  return (
    <>
      {items.length === 0 ? (
        shownDraft ? null : (
          <p className="muted">Nothing said yet: the model has not answered.</p>
        )
      ) : (
        <ol className="transcript" aria-label="Transcript">
          {items.map((item) => (
            <li key={item.key} className="transcript-item" data-kind={item.kind}>
              <TranscriptEntry item={item} />
            </li>
          ))}
        </ol>
      )}
      {/* Always present, so a screen reader knows the region; busy while the model writes, so it is
          read once the text settles, not token by token. */}
      <div className="transcript-draft" aria-live="polite" aria-busy={shownDraft !== null}>
        {shownDraft && <DraftEntry draft={shownDraft} />}
      </div>
    </>
  );
}

/** What a streaming model has generated of the next step so far. */
function DraftEntry({ draft }: { draft: DraftView }) {
  return (
    <article className="transcript-item" aria-label={`Model, step ${draft.step + 1}, writing`}>
      <p className="transcript-speaker">
        Model <span className="muted">· step {draft.step + 1} · writing…</span>
      </p>
      {draft.text ? <p className="transcript-text">{draft.text}</p> : null}
      {draft.calls.map((call, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a draft's calls only ever grow, in place
        <p key={index} className="muted">
          Asking for <span className="call-name">{call.name || "…"}</span>{" "}
          <code className="transcript-draft-arguments">{call.arguments}</code>
        </p>
      ))}
    </article>
  );
}

function TranscriptEntry({ item }: { item: TranscriptItem }) {
  switch (item.kind) {
    case "assistant":
      return (
        <article aria-label={`Model, step ${item.stepIndex + 1}`}>
          <p className="transcript-speaker">
            Model <span className="muted">· step {item.stepIndex + 1}</span>
          </p>
          {item.text ? <p className="transcript-text">{item.text}</p> : null}
          <p className="muted">
            {item.calls.length === 0
              ? "Asked for no tool calls."
              : `${item.isRepair ? "Asked for (sent back to repair)" : "Asked for"} ${item.calls
                  .map((call) => call.name)
                  .join(", ")}.`}
          </p>
        </article>
      );
    case "tool": {
      const { call } = item;
      const state = describeCallState(call, item.isAwaitingApproval);
      const label = `${call.name} call ${call.batchIndex} of step ${item.stepIndex + 1}`;
      return (
        <article aria-label={`Tool ${label}: ${state.text}`}>
          <p className="transcript-speaker">
            Tool <span className="call-name">{call.name}</span>{" "}
            <span className="muted">#{call.batchIndex}</span>{" "}
            <span className="state" data-state={state.tone}>
              {state.text}
            </span>
          </p>
          <details>
            <summary>
              Arguments<span className="visually-hidden"> of {label}</span>
            </summary>
            <JsonBlock value={call.editedArguments ?? call.arguments} isRaw label={`arguments of ${label}`} />
            {call.editedArguments !== null && <p className="muted">Edited by the approver before it ran.</p>}
          </details>
          {call.error && <p className="call-error">{call.error.message}</p>}
          {call.result !== null && call.result !== undefined && (
            <>
              <p className="muted">Returned</p>
              <JsonBlock value={call.result} label={`result of ${label}`} />
            </>
          )}
        </article>
      );
    }
    case "decision": {
      const { decision } = item;
      return (
        <article aria-label={`Decision on step ${item.stepIndex + 1}`} data-outcome={decision.outcome}>
          <p className="transcript-speaker">
            {decision.kind === "decision" ? decision.actor : "Tool Playground"}{" "}
            <span className="muted">
              · <Timestamp at={decision.at} />
            </span>
          </p>
          <p>
            <strong>{describeDecision(decision)}</strong>
          </p>
          {decision.reason && (
            <blockquote className="transcript-text" aria-label="Reply to the model">
              {decision.reason}
            </blockquote>
          )}
        </article>
      );
    }
    case "waiting":
      return (
        <p className="transcript-speaker" role="note">
          Waiting for a decision on step {item.stepIndex + 1}.
        </p>
      );
    case "finished":
      return (
        <p className="transcript-speaker">
          The run ended: <StatusBadge status={item.status} />
          {item.error && <span className="call-error"> {item.error.message}</span>}
        </p>
      );
  }
}
