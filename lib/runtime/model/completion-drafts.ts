import type { PartialCompletion, PartialToolCall } from "./model";

/**
 * Streamed model output (docs/transcript-and-fork.md#streamed-output): what a
 * model that streams has generated of a step's completion so far, kept in
 * this process only, beside the run's durable events and never among them.
 * The completion's `step_planned` event stays the one record of it; a draft
 * is forgotten once the step is planned (or the model call failed).
 */

/** A run's completion as far as it has been generated. */
export interface CompletionDraft {
  stepIndex: number;
  /** Grows by one each time what was shown is withdrawn (the completion asked for again). */
  generation: number;
  text: string;
  calls: readonly PartialToolCall[];
}

/** This process's drafts, by run. */
export interface CompletionDrafts {
  /** The partial completion of `stepIndex` so far; `null` withdraws what was shown. */
  publish(runId: string, stepIndex: number, partial: PartialCompletion | null): void;
  /** The step's completion was planned, or failed: its draft is gone. */
  end(runId: string): void;
  current(runId: string): CompletionDraft | undefined;
  /** Calls `listener` after each change of the run's draft (not with it: read `current`). */
  follow(runId: string, listener: () => void): () => void;
}

export function createCompletionDrafts(): CompletionDrafts {
  const drafts = new Map<string, CompletionDraft>();
  const listeners = new Map<string, Set<() => void>>();
  const notify = (runId: string) => {
    for (const listener of listeners.get(runId) ?? []) listener();
  };
  return {
    publish(runId, stepIndex, partial) {
      const previous = drafts.get(runId);
      const isSameDraft = previous !== undefined && previous.stepIndex === stepIndex && partial !== null;
      drafts.set(runId, {
        stepIndex,
        generation: isSameDraft ? previous.generation : (previous?.generation ?? 0) + 1,
        text: partial?.text ?? "",
        calls: partial?.calls ?? [],
      });
      notify(runId);
    },
    end(runId) {
      if (drafts.delete(runId)) notify(runId);
    },
    current: (runId) => drafts.get(runId),
    follow(runId, listener) {
      let set = listeners.get(runId);
      if (!set) {
        set = new Set();
        listeners.set(runId, set);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(runId) === set) listeners.delete(runId);
      };
    },
  };
}

/**
 * What one reader has been sent of a draft, so the next message carries only
 * what was generated since (`null`: nothing yet, the next message is whole).
 */
export interface DraftSent {
  stepIndex: number;
  generation: number;
  textLength: number;
  calls: Array<{ name: string; argumentsLength: number }>;
}

/**
 * One message of a draft to a reader: with `reset`, the whole draft; without,
 * what to append to the text and to each call's arguments (a call not seen
 * before comes whole, with its name).
 */
export interface DraftMessage {
  step: number;
  reset: boolean;
  text: string;
  calls: Array<{ index: number; name?: string; arguments: string }>;
}

/** The message that brings a reader who was sent `sent` up to `draft`, or null when it has it all. */
export function diffCompletionDraft(
  sent: DraftSent | null,
  draft: CompletionDraft,
): { message: DraftMessage; sent: DraftSent } | null {
  const nowSent: DraftSent = {
    stepIndex: draft.stepIndex,
    generation: draft.generation,
    textLength: draft.text.length,
    calls: draft.calls.map((call) => ({ name: call.name, argumentsLength: call.arguments.length })),
  };
  const isContinued =
    sent !== null &&
    sent.stepIndex === draft.stepIndex &&
    sent.generation === draft.generation &&
    sent.textLength <= draft.text.length &&
    sent.calls.length <= draft.calls.length &&
    sent.calls.every(
      (call, index) =>
        call.name === draft.calls[index]?.name &&
        call.argumentsLength <= (draft.calls[index]?.arguments.length ?? 0),
    );
  if (!isContinued) {
    return {
      sent: nowSent,
      message: {
        step: draft.stepIndex,
        reset: true,
        text: draft.text,
        calls: draft.calls.map((call, index) => ({ index, name: call.name, arguments: call.arguments })),
      },
    };
  }
  const calls: DraftMessage["calls"] = [];
  draft.calls.forEach((call, index) => {
    const was = sent.calls[index];
    if (!was) calls.push({ index, name: call.name, arguments: call.arguments });
    else if (call.arguments.length > was.argumentsLength)
      calls.push({ index, arguments: call.arguments.slice(was.argumentsLength) });
  });
  const text = draft.text.slice(sent.textLength);
  if (text === "" && calls.length === 0) return null;
  return { sent: nowSent, message: { step: draft.stepIndex, reset: false, text, calls } };
}

/** A draft as a page shows it. */
export interface DraftView {
  step: number;
  text: string;
  calls: Array<{ name: string; arguments: string }>;
}

/**
 * Applies a draft message to what the page has (the browser's side of
 * {@link diffCompletionDraft}). A continuation of a draft the page does not
 * have is ignored: the stream that sent it starts every draft whole.
 */
export function applyDraftMessage(current: DraftView | null, message: DraftMessage): DraftView | null {
  if (message.reset) {
    return {
      step: message.step,
      text: message.text,
      calls: message.calls.map((call) => ({ name: call.name ?? "", arguments: call.arguments })),
    };
  }
  if (!current || current.step !== message.step) return current;
  const calls = [...current.calls];
  for (const call of message.calls) {
    const was = calls[call.index];
    if (was) calls[call.index] = { name: call.name ?? was.name, arguments: was.arguments + call.arguments };
    else if (call.index === calls.length) calls.push({ name: call.name ?? "", arguments: call.arguments });
  }
  return { step: current.step, text: current.text + message.text, calls };
}
