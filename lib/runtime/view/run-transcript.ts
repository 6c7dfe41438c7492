/**
 * A run as a conversation (the run page's Transcript view): what the model
 * said at each step, each tool call it asked for with what came of it, and
 * each decision an approver took, with its reply, in the order they happened.
 *
 * A projection of the run view, never a second fold of the events: the page
 * keeps its one view current from its one stream, and this reads it. Pure
 * data, importable on both sides.
 */

import type { CallView, DecisionView, RunView } from "../events/run-view";
import type { RunError, RunStatus } from "../run/run-types";

/** One line of the transcript: a model's message, a call and its outcome, a decision, a wait, or the run's end. */
export type TranscriptItem =
  | {
      kind: "assistant";
      key: string;
      stepIndex: number;
      /** What the model said with its calls; null when it said nothing. */
      text: string | null;
      /** The calls it asked for, in batch order. */
      calls: Array<{ batchIndex: number; name: string }>;
      /** True when the planner sent the batch back to be repaired instead of running it. */
      isRepair: boolean;
    }
  | {
      kind: "tool";
      key: string;
      stepIndex: number;
      call: CallView;
      /** True while the run waits for a decision on this call. */
      isAwaitingApproval: boolean;
    }
  | { kind: "decision"; key: string; stepIndex: number; decision: DecisionView }
  | { kind: "waiting"; key: string; stepIndex: number; gates: number[] }
  | {
      kind: "finished";
      key: string;
      status: Exclude<RunStatus, "RUNNING" | "WAITING_FOR_APPROVAL">;
      error: RunError | null;
    };

/**
 * The run's transcript, in order. Within a step, the model's message comes
 * first; then its calls' outcomes and the decisions on them in the order their
 * events were stored (a call that has not settled yet sorts after everything
 * that has, in batch order); a wait for a decision and the run's end close it.
 */
export function buildRunTranscript(view: RunView): TranscriptItem[] {
  const invalidatedAt = new Map<string, number>();
  for (const entry of view.log) {
    if (entry.type !== "calls_invalidated") continue;
    const payload = entry.payload as { stepIndex: number; calls: Array<{ batchIndex: number }> };
    for (const call of payload.calls) invalidatedAt.set(`${payload.stepIndex}:${call.batchIndex}`, entry.seq);
  }
  const waitingAt =
    view.pending === null
      ? new Set<string>()
      : new Set([`${view.pending.stepIndex}:${view.pending.gates[0]}`]);

  const items: TranscriptItem[] = [];
  for (const step of view.steps) {
    items.push({
      kind: "assistant",
      key: `step-${step.index}`,
      stepIndex: step.index,
      text: step.text,
      calls: step.calls.map(({ batchIndex, name }) => ({ batchIndex, name })),
      isRepair: step.plan.kind === "repair",
    });
    const answers: Array<{ order: number; tie: number; item: TranscriptItem }> = [];
    for (const call of step.calls) {
      const at = `${step.index}:${call.batchIndex}`;
      answers.push({
        order: call.settleSeq ?? invalidatedAt.get(at) ?? Number.POSITIVE_INFINITY,
        tie: call.batchIndex,
        item: {
          kind: "tool",
          key: `call-${at}`,
          stepIndex: step.index,
          call,
          isAwaitingApproval: waitingAt.has(at),
        },
      });
    }
    for (const decision of view.decisions) {
      if (decision.stepIndex !== step.index) continue;
      answers.push({
        // Before the outcome of the call it decided, which is stored after it.
        order: decision.seq,
        tie: -1,
        item: { kind: "decision", key: `decision-${decision.seq}`, stepIndex: step.index, decision },
      });
    }
    answers.sort((left, right) => left.order - right.order || left.tie - right.tie);
    items.push(...answers.map((answer) => answer.item));
    if (view.pending?.stepIndex === step.index) {
      items.push({
        kind: "waiting",
        key: `waiting-${step.index}`,
        stepIndex: step.index,
        gates: view.pending.gates,
      });
    }
  }
  if (view.status !== "RUNNING" && view.status !== "WAITING_FOR_APPROVAL") {
    items.push({ kind: "finished", key: "finished", status: view.status, error: view.error });
  }
  return items;
}
