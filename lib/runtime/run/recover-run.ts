import type { StoredRunEvent } from "../events/run-events";
import type { RunView, StepView } from "../events/run-view";
import { foldRunEvents } from "../events/run-view";
import type { TranscriptEntry } from "../model/model";
import { legacyReissueAfter } from "../planner/plan-legacy";
import { createPolicyDeniedProblem } from "../planner/plan-problems";
import { type PreflightedCall, preflightCall } from "../planner/preflight";
import { type BarrierAction, describeEdit, invalidateRemaining } from "./execute-step";
import { formatRepairNotice } from "./plan-next-step";
import type { RunEnvironment } from "./run-environment";
import { LostClaimError, stopsTheWorker } from "./run-errors";
import { driveRun, failRun, stopWorker } from "./run-loop";
import type { RunRecord } from "./run-records";
import type { CallOutcome, RunStatus } from "./run-types";
import { decodeSuspendedState, type StepProgress } from "./suspended-state";

/** Statuses a call can no longer leave. */
const SETTLED = new Set(["ok", "error", "denied", "invalidated", "not_dispatched", "expired"]);

/** The error a call gets when its worker died while it ran and running it again could repeat its effect. */
const INTERRUPTED = {
  code: "interrupted",
  message:
    "The worker running this call stopped before its outcome was stored; the outcome is unknown and it was not retried.",
};

export interface RecoveryOptions {
  /** Who recovers the run (an instance name), for the `run_recovered` event. */
  by: string;
  /** The transcript a fresh run of this scenario starts with. */
  initialTranscript: TranscriptEntry[];
}

/**
 * Goes on with a run whose worker was lost, for the worker that has just
 * claimed it (its lease had run out), from what is stored:
 *
 * - taken up at its barrier by a decision that was audited → resumes with that
 *   decision (the audit row is the decision; `approval_decided` is announced
 *   if it had not been); taken up but not audited → back to waiting;
 * - mid-step → the step goes on from its first unsettled segment: a call left
 *   `running` runs again when it is a read or an idempotent write; a
 *   non-idempotent write is never run again: it settles `error`/`interrupted`,
 *   the calls after it are invalidated and the model is told;
 * - between steps → the next completion is asked for (again, perhaps: the
 *   report counts it in `metrics.recoveredCompletions`).
 *
 * Announces `run_recovered` first. Never throws, like `driveRun`.
 */
export async function recoverRun(
  environment: RunEnvironment,
  run: RunRecord,
  options: RecoveryOptions,
): Promise<RunStatus> {
  try {
    const events = await environment.store.readEvents(environment.runId, 0);
    const view = foldRunEvents(environment.runId, events);
    const takenUp = barrierTakenUp(events, view);
    if (takenUp) return await resumeAtBarrier(environment, run, options, events, takenUp);
    return await resumeFromEvents(environment, events, view, options);
  } catch (error) {
    if (LostClaimError.isInstance(error)) return "RUNNING";
    if (stopsTheWorker(error)) return stopWorker(environment, error);
    return failRun(environment, error);
  }
}

/**
 * The claim event of a run that a decision or cancel took up at its barrier
 * and that never went on from it; `"unannounced"` when the claim itself was
 * stored but its event was not.
 */
function barrierTakenUp(
  events: readonly StoredRunEvent[],
  view: RunView,
): StoredRunEvent | "unannounced" | null {
  const last = events.findLast((event) =>
    ["awaiting_approval", "run_claimed", "run_released", "run_resumed", "step_planned"].includes(event.type),
  );
  if (last?.type === "run_claimed") return last;
  // The run row says RUNNING (we just took it over from an expired lease) but the log says it waits.
  if (last?.type === "awaiting_approval" || last?.type === "run_released")
    return view.pending ? "unannounced" : null;
  return null;
}

async function resumeAtBarrier(
  environment: RunEnvironment,
  run: RunRecord,
  options: RecoveryOptions,
  allEvents: readonly StoredRunEvent[],
  takenUp: StoredRunEvent | "unannounced",
): Promise<RunStatus> {
  const { store, runId, claimToken } = environment;
  const state = decodeSuspendedState(runId, run.state);
  const from = { stepIndex: state.stepIndex, segment: state.nextSegment };
  const events = takenUp === "unannounced" ? [] : allEvents.filter((event) => event.seq > takenUp.seq);
  const expired = events.find((event) => event.type === "approval_expired");
  const announced = events.find((event) => event.type === "approval_decided");
  const audited =
    takenUp === "unannounced"
      ? undefined
      : (await store.listApprovals(runId)).find(
          // A count toward a quorum is written while the run waits, never after a claim: never this decision.
          (approval) =>
            approval.kind !== "partial" &&
            approval.turnDigest === state.pending.turnDigest &&
            approval.decidedAt >= takenUp.at,
        );
  if (expired) {
    // The wait expired (audited and announced in one write): the expiry goes on.
    await store.appendEvent(runId, claimToken, recovered(options, from, "barrier", false));
    return driveRun(environment, {
      transcript: state.transcript,
      modelCalls: run.modelCalls,
      nextStepIndex: state.stepIndex + 1,
      progress: state,
      barrierAction: { kind: "expire" },
    });
  }
  const decision = announced?.type === "approval_decided" ? announced.payload : audited;
  if (!decision) {
    // Nobody's decision was recorded: the turn is offered again, exactly as it was.
    await store.appendEvent(runId, claimToken, recovered(options, from, "returned_to_waiting", false));
    const released = await store.releaseRun(runId, claimToken, run.state, {
      type: "run_released",
      payload: { stepIndex: state.stepIndex, ...state.pending, refusal: "interrupted" },
    });
    if (!released) throw new LostClaimError(runId);
    return "WAITING_FOR_APPROVAL";
  }
  await store.appendEvent(runId, claimToken, recovered(options, from, "barrier", false));
  if (!announced && audited) {
    await store.appendEvent(runId, claimToken, {
      type: "approval_decided",
      payload: {
        stepIndex: state.stepIndex,
        turnDigest: audited.turnDigest,
        approve: audited.approve,
        actor: audited.actor,
        actorId: audited.actorId,
        reason: audited.reason,
        audited: true,
        outcome: audited.approve ? "executed" : "denied",
        decisionId: audited.decisionId,
        scope: audited.scope,
        gates: audited.batchIndex === null ? [] : [audited.batchIndex],
        editedArguments: audited.editedArguments,
        allowTool: null,
      },
    });
  }
  const barrierAction: BarrierAction = decision.approve
    ? { kind: "approve" }
    : { kind: "deny", reason: decision.reason, actor: decision.actor };
  return driveRun(environment, {
    transcript: state.transcript,
    modelCalls: run.modelCalls,
    nextStepIndex: state.stepIndex + 1,
    progress: state,
    barrierAction,
  });
}

async function resumeFromEvents(
  environment: RunEnvironment,
  events: readonly StoredRunEvent[],
  view: RunView,
  options: RecoveryOptions,
): Promise<RunStatus> {
  const { store, runId, claimToken } = environment;
  const last = view.steps.at(-1);
  const between = {
    modelCalls: view.modelCalls,
    nextStepIndex: view.steps.length,
    repairAttempts: trailingRepairs(view.steps),
  };

  if (!last || last.isFinished || last.plan.kind === "repair") {
    if (last && !last.isFinished) await store.finishStep(runId, claimToken, last.index, last.metrics);
    const ended = last ? endedBy(last, events) : null;
    if (ended) {
      await store.appendEvent(runId, claimToken, recovered(options, null, "finished", false));
      await store.finishRun(runId, claimToken, ended, null);
      return ended;
    }
    await store.appendEvent(runId, claimToken, recovered(options, null, "next_completion", true));
    return driveRun(environment, {
      ...between,
      transcript: rebuildTranscript(options.initialTranscript, view.steps),
      // Legacy policy: what the last step asked the model for again, asked again.
      reissue: environment.executionPolicy === "legacy" && last ? legacyReissueAfter(last) : null,
    });
  }

  let progress = progressOf(environment, last, options.initialTranscript, view.steps);
  const segment = progress.plan.segments[progress.nextSegment];
  const from = { stepIndex: last.index, segment: progress.nextSegment };
  const running = last.calls.filter((call) => call.status === "running");
  const unrepeatable = running.find(
    (call) => environment.registry.effectFor(call.name) === "NON_IDEMPOTENT_WRITE",
  );
  let barrierAction: BarrierAction | undefined;
  if (unrepeatable) {
    await store.appendEvent(runId, claimToken, recovered(options, from, "step", false));
    const outcome: CallOutcome = { status: "error", result: null, error: INTERRUPTED };
    await store.settleCalls(runId, claimToken, last.index, [
      { batchIndex: unrepeatable.batchIndex, outcome },
    ]);
    progress = await invalidateRemaining(
      environment,
      { ...progress, outcomes: { ...progress.outcomes, [unrepeatable.batchIndex]: outcome } },
      { code: "interrupted", message: `the worker stopped while ${unrepeatable.name} ran` },
    );
  } else {
    if (segment?.kind === "barrier") barrierAction = barrierActionAfterLoss(events, last, segment.batchIndex);
    await store.appendEvent(runId, claimToken, recovered(options, from, "step", false));
  }
  return driveRun(environment, {
    ...between,
    transcript: progress.transcript,
    progress,
    barrierAction,
  });
}

/**
 * What to do at a barrier a lost worker had got past: it ran the barrier (an
 * approved call, now `running` again or never started after `run_resumed`),
 * or was resolving a denial or cancel. `undefined` when the barrier was never
 * reached: the step then suspends there as usual.
 */
function barrierActionAfterLoss(
  events: readonly StoredRunEvent[],
  step: StepView,
  batchIndex: number,
): BarrierAction | undefined {
  const resumed = events.findLast(
    (event) => event.type === "run_resumed" && event.payload.stepIndex === step.index,
  );
  const barrier = step.calls.find((call) => call.batchIndex === batchIndex);
  if (barrier?.status === "running") return { kind: "approve" };
  if (resumed?.type !== "run_resumed") return undefined;
  switch (resumed.payload.action) {
    case "approve":
      return { kind: "approve" };
    case "expire":
      return { kind: "expire" };
    case "deny": {
      const decided = events.findLast((event) => event.type === "approval_decided");
      const payload = decided?.type === "approval_decided" ? decided.payload : null;
      return { kind: "deny", reason: payload?.reason ?? null, actor: payload?.actor ?? "an operator" };
    }
    case "cancel_turn":
      return { kind: "cancel", scope: "turn" };
    case "cancel_run":
      return { kind: "cancel", scope: "run" };
  }
}

/** A step's progress rebuilt from its events: every call preflighted again, settled outcomes, the next segment. */
function progressOf(
  environment: RunEnvironment,
  step: StepView,
  initialTranscript: TranscriptEntry[],
  steps: readonly StepView[],
): StepProgress {
  const outcomes: Record<string, CallOutcome> = {};
  for (const call of step.calls) {
    if (SETTLED.has(call.status))
      outcomes[call.batchIndex] = { status: call.status, result: call.result, error: call.error };
  }
  const segments = step.plan.segments;
  const isSettled = (batchIndex: number) => String(batchIndex) in outcomes;
  let nextSegment = segments.findIndex((segment) =>
    segment.kind === "wave" ? !segment.batchIndexes.every(isSettled) : !isSettled(segment.batchIndex),
  );
  if (nextSegment < 0) nextSegment = segments.length;
  return {
    stepIndex: step.index,
    // Preflight is pure: the same registry gives the same parsed arguments, effects and gates.
    // A call an approver changed runs with what they changed it to; a call a grant let through
    // keeps it, so its start is audited as an automatic approval.
    calls: step.calls.map((call) => {
      const preflighted = preflightCall(
        {
          id: call.id,
          name: call.name,
          arguments: call.editedArguments ?? call.arguments,
          batchIndex: call.batchIndex,
        },
        environment.registry,
      );
      // Bound to the definition it was planned (and approved) with, not to today's listing: the
      // call is sent only if its tool is still defined that way. A call of a tool defined
      // elsewhere that was planned with no fingerprint can never match (see runTool).
      const { toolFingerprint: _listedNow, ...planned } = preflighted;
      const bound = call.toolFingerprint ? { ...planned, toolFingerprint: call.toolFingerprint } : planned;
      // The policy's decision is the one recorded when planned, not what today's policy would say.
      if (call.policy) return withRecordedPolicy(bound, call);
      return call.allowedBy ? { ...bound, isGated: false, allowedBy: call.allowedBy } : bound;
    }),
    edits: Object.fromEntries(
      step.calls.flatMap((call) =>
        call.editedArguments === null ? [] : [[call.batchIndex, call.arguments]],
      ),
    ),
    approvedGates: step.approvedGates,
    plan: step.plan,
    nextSegment,
    completedWaves: segments.slice(0, nextSegment).filter((segment) => segment.kind === "wave").length,
    outcomes,
    transcript: rebuildTranscript(initialTranscript, steps),
  };
}

/**
 * The transcript the model had seen, rebuilt from the steps: each step's
 * assistant message, then (once the step finished) its repair notice or every
 * call's outcome in batch order, exactly as the run loop appends them.
 */
export function rebuildTranscript(
  initial: readonly TranscriptEntry[],
  steps: readonly StepView[],
): TranscriptEntry[] {
  const transcript: TranscriptEntry[] = [...initial];
  for (const step of steps) {
    transcript.push({
      role: "assistant",
      ...(step.completion?.synthesized ? { synthesized: true } : {}),
      text: step.text,
      calls: step.calls.map(({ id, name, arguments: args, batchIndex }) => ({
        id,
        name,
        arguments: args,
        batchIndex,
      })),
    });
    if (!step.isFinished) break;
    if (step.plan.kind === "repair") {
      transcript.push({ role: "repair_notice", text: formatRepairNotice(step.plan.problems) });
      continue;
    }
    for (const call of step.calls) {
      const settled = SETTLED.has(call.status);
      transcript.push({
        role: "tool",
        callId: call.id,
        name: call.name,
        batchIndex: call.batchIndex,
        status: settled ? call.status : "not_dispatched",
        result: settled ? call.result : null,
        error: settled ? call.error : null,
        ...(call.editedArguments === null ? {} : { note: describeEdit(call.editedArguments) }),
      });
    }
  }
  return transcript;
}

/** How the run ends after a finished step, when that step ended it: a lone `finish`, or a cancelled run. */
function endedBy(step: StepView, events: readonly StoredRunEvent[]): "COMPLETED" | "CANCELLED" | null {
  const [only, ...others] = step.calls;
  if (others.length === 0 && only?.name === "finish" && only.status === "ok") return "COMPLETED";
  const cancelled = events.some(
    (event) =>
      event.type === "calls_invalidated" &&
      event.payload.stepIndex === step.index &&
      event.payload.reason === "run_cancelled",
  );
  return cancelled ? "CANCELLED" : null;
}

function trailingRepairs(steps: readonly StepView[]): number {
  let count = 0;
  for (let index = steps.length - 1; index >= 0 && steps[index]?.plan.kind === "repair"; index -= 1)
    count += 1;
  return count;
}

function recovered(
  options: RecoveryOptions,
  from: { stepIndex: number; segment: number } | null,
  resumption: "step" | "barrier" | "next_completion" | "returned_to_waiting" | "finished",
  reissuedCompletion: boolean,
) {
  return {
    type: "run_recovered" as const,
    payload: {
      by: options.by,
      from: from ?? { stepIndex: null, segment: null },
      resumption,
      reissuedCompletion,
    },
  };
}

/** A re-preflighted call with the policy decision it was planned under (docs/policies.md#how-a-call-is-decided). */
function withRecordedPolicy(
  call: PreflightedCall,
  recorded: Pick<PreflightedCall, "policy" | "gatedByDeclaration" | "shadow">,
): PreflightedCall {
  const policy = recorded.policy;
  if (!policy || call.problem !== null) return call;
  const kept = {
    ...call,
    policy,
    ...(recorded.gatedByDeclaration === undefined ? {} : { gatedByDeclaration: recorded.gatedByDeclaration }),
    ...(recorded.shadow ? { shadow: recorded.shadow } : {}),
  };
  if (policy.effect === "deny") {
    return { ...kept, isGated: false, problem: createPolicyDeniedProblem(call, policy.rule, policy.message) };
  }
  return { ...kept, isGated: policy.effect === "require" };
}
