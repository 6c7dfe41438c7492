import { RuntimeError } from "../errors";
import type { ModelToolCall, TranscriptEntry } from "../model/model";
import { type BatchPlanning, planBatch } from "../plan-batch";
import type { PreflightedCall } from "../preflight";
import type { Plan, PlanProblem, ToolCall } from "../types";
import { executeCall } from "./execute-call";
import { CANCELLED_RUN, CANCELLED_TURN, executeStep, invalidateRemaining } from "./execute-step";
import type { RunEnvironment } from "./run-environment";
import { LostClaimError, RepairExhaustedError } from "./run-errors";
import type { CallOutcome, RunStatus, StepProgress } from "./run-types";
import { computeStepMetrics } from "./step-metrics";

/** What a worker that claimed a waiting run does with the barrier it waits at. */
export type BarrierAction =
  | { kind: "approve" }
  | { kind: "deny"; reason: string | null; actor: string }
  | { kind: "cancel"; scope: "turn" | "run" };

/** Where a worker picks a run up: a fresh run, or a step part-way through. */
export interface RunStart {
  transcript: TranscriptEntry[];
  modelCalls: number;
  nextStepIndex: number;
  progress?: StepProgress;
  /** With `progress` stopped at a barrier: how to resolve it before going on. */
  barrierAction?: BarrierAction;
}

/**
 * Drives a claimed run until it suspends at a barrier or ends (SPEC §4):
 * model completion → plan → execute → next completion. A repair dispatches
 * nothing and sends the model a notice listing every problem, at most
 * `maxRepairAttempts` times in a row. `reply` continues with the next
 * completion; `finish` completes the run. Never throws: a failure ends the
 * run FAILED with the error's code; a lost claim leaves the run to its new
 * holder. Returns the run's status as this worker left it.
 */
export async function runSteps(environment: RunEnvironment, start: RunStart): Promise<RunStatus> {
  try {
    return await loop(environment, start);
  } catch (error) {
    if (LostClaimError.isInstance(error)) return "RUNNING";
    // An unexpected error's message may carry SQL or driver details: those go to the log, never into the run.
    const runError = RuntimeError.isInstance(error)
      ? { code: error.code, message: error.message }
      : { code: "internal_error", message: "The run failed unexpectedly; the server log has the details." };
    environment.log?.("run failed", { runId: environment.runId, ...runError, cause: describeCause(error) });
    try {
      await environment.store.finishRun(environment.runId, environment.claimToken, "FAILED", runError);
    } catch {
      await environment.store.forceFail(environment.runId, runError);
    }
    return "FAILED";
  }
}

async function loop(environment: RunEnvironment, start: RunStart): Promise<RunStatus> {
  const { store, runId, claimToken, registry, limits } = environment;
  let { transcript, modelCalls, nextStepIndex, progress } = start;
  let repairAttempts = 0;
  if (progress && start.barrierAction) {
    progress = await resolveBarrier(environment, progress, start.barrierAction);
    if (start.barrierAction.kind === "cancel" && start.barrierAction.scope === "run") {
      await completeStep(environment, progress);
      await store.finishRun(runId, claimToken, "CANCELLED", null);
      return "CANCELLED";
    }
  }
  const tools = registry
    .list()
    .map(({ name, description, parameters }) => ({ name, description, parameters }));

  for (;;) {
    if (progress) {
      const result = await executeStep(environment, progress);
      if (result.kind === "suspended") return "WAITING_FOR_APPROVAL";
      transcript = await completeStep(environment, result.progress);
      if (result.cancelled === "run") {
        await store.finishRun(runId, claimToken, "CANCELLED", null);
        return "CANCELLED";
      }
      const finished = finishedBy(result.progress);
      if (finished) {
        await store.finishRun(runId, claimToken, "COMPLETED", null);
        return "COMPLETED";
      }
      progress = undefined;
    }

    if ((await store.takeCancelRequest(runId)) === "run") {
      await store.finishRun(runId, claimToken, "CANCELLED", null);
      return "CANCELLED";
    }
    const signal = environment.stepSignal();
    let completion: Awaited<ReturnType<typeof environment.model.complete>>;
    try {
      completion = await environment.model.complete({
        transcript,
        tools,
        completionIndex: modelCalls,
        signal,
      });
    } catch (error) {
      // A cancellation aborts the model call: that is the cancel taking effect, not the model failing.
      const cancelled = signal.aborted ? await store.takeCancelRequest(runId) : null;
      if (cancelled === "run") {
        await store.finishRun(runId, claimToken, "CANCELLED", null);
        return "CANCELLED";
      }
      if (cancelled === "turn") continue; // the turn had no calls yet: ask the model again
      throw error;
    }
    modelCalls += 1;
    const stepIndex = nextStepIndex;
    nextStepIndex += 1;
    const calls = normalizeCalls(completion.calls, stepIndex);
    const { plan, calls: preflighted } =
      calls.length === 0 ? EMPTY_BATCH : planBatch(calls, registry, limits);
    transcript = [...transcript, { role: "assistant", text: completion.text, calls }];
    const outcomes = notDispatchedOutcomes(plan, preflighted);
    const plannedMetrics = computeStepMetrics(plan, calls.length, limits, {
      completedWaves: 0,
      invalidatedCount: 0,
    });
    await store.recordStep(
      runId,
      {
        index: stepIndex,
        text: completion.text,
        plan,
        metrics: plannedMetrics,
        calls: preflighted.map((call) => ({
          call,
          status: outcomes[call.batchIndex]?.status ?? "pending",
          error: outcomes[call.batchIndex]?.error ?? null,
        })),
      },
      modelCalls,
    );

    if (plan.kind === "repair") {
      await store.finishStep(runId, stepIndex, plannedMetrics);
      repairAttempts += 1;
      if (repairAttempts > limits.maxRepairAttempts)
        throw new RepairExhaustedError(limits.maxRepairAttempts, plan.problems);
      transcript = [...transcript, { role: "repair_notice", text: formatRepairNotice(plan.problems) }];
      continue;
    }
    repairAttempts = 0;
    progress = {
      stepIndex,
      calls: preflighted,
      plan,
      nextSegment: 0,
      completedWaves: 0,
      outcomes,
      transcript,
    };
  }
}

/**
 * Stores the step's final metrics and returns the transcript with every
 * call's outcome appended in original batch order, whatever order they
 * settled in (SPEC §4).
 */
export async function completeStep(
  environment: RunEnvironment,
  progress: StepProgress,
): Promise<TranscriptEntry[]> {
  const outcomes = Object.values(progress.outcomes);
  const metrics = computeStepMetrics(progress.plan, progress.calls.length, environment.limits, {
    completedWaves: progress.completedWaves,
    invalidatedCount: outcomes.filter((outcome) => outcome.status === "invalidated").length,
  });
  await environment.store.finishStep(environment.runId, progress.stepIndex, metrics);
  const results: TranscriptEntry[] = progress.calls.map((call) => {
    const outcome = progress.outcomes[call.batchIndex] ?? {
      status: "not_dispatched",
      result: null,
      error: null,
    };
    return {
      role: "tool",
      callId: call.id,
      name: call.name,
      batchIndex: call.batchIndex,
      status: outcome.status,
      result: outcome.result,
      error: outcome.error,
    };
  });
  return [...progress.transcript, ...results];
}

/**
 * A completion without tool calls is sent back like a repair: the run only
 * ends through `finish`, and the repair bound stops a model that never calls it.
 */
const EMPTY_BATCH: BatchPlanning = {
  plan: {
    kind: "repair",
    segments: [],
    problems: [
      {
        batchIndex: null,
        code: "no_tool_calls",
        message: "The response had no tool calls: call finish to end the run, or reply to answer and go on.",
      },
    ],
  },
  calls: [],
};

/**
 * Outcomes known at planning time: every call of a repair plan, and each call
 * an execute plan lists as a problem, is settled `not_dispatched` with its
 * problem as the error (SPEC §3 rules 1b–6).
 */
function notDispatchedOutcomes(plan: Plan, calls: readonly PreflightedCall[]): Record<string, CallOutcome> {
  const problemOf = new Map(plan.problems.map((problem) => [problem.batchIndex, problem]));
  const outcomes: Record<string, CallOutcome> = {};
  for (const call of calls) {
    const problem = problemOf.get(call.batchIndex) ?? (plan.kind === "repair" ? BATCH_SENT_BACK : undefined);
    if (problem) {
      outcomes[call.batchIndex] = {
        status: "not_dispatched",
        result: null,
        error: { code: problem.code, message: problem.message },
      };
    }
  }
  return outcomes;
}

const BATCH_SENT_BACK = { code: "repair", message: "The batch was sent back for repair." };

/** A lone, successful `finish` call ends the run. */
function finishedBy(progress: StepProgress): boolean {
  const [only, ...others] = progress.calls;
  return (
    others.length === 0 && only?.name === "finish" && progress.outcomes[only.batchIndex]?.status === "ok"
  );
}

/** Gives every call its place in the batch and an id (the model's, or `call_<step>_<index>`). */
export function normalizeCalls(calls: readonly ModelToolCall[], stepIndex: number): ToolCall[] {
  return calls.map((call, batchIndex) => ({
    id: call.id && call.id.length > 0 ? call.id : `call_${stepIndex}_${batchIndex}`,
    name: call.name,
    arguments: call.arguments,
    batchIndex,
  }));
}

/** The notice a model gets instead of results when its batch is refused: every problem, one per line. */
export function formatRepairNotice(problems: readonly PlanProblem[]): string {
  const lines = problems.map(
    (problem) =>
      `- ${problem.batchIndex === null ? "batch" : `call ${problem.batchIndex}`}: [${problem.code}] ${problem.message}`,
  );
  return `None of your tool calls were executed. Send a corrected response that fixes every problem:\n${lines.join("\n")}`;
}

/**
 * Applies a decision or cancellation to the barrier a step waits at (SPEC §4):
 * an approved barrier runs alone, and the calls after it run only if it
 * succeeded; a denial, a failure of the gated call or a cancellation
 * invalidates every unexecuted later call.
 */
async function resolveBarrier(
  environment: RunEnvironment,
  progress: StepProgress,
  action: BarrierAction,
): Promise<StepProgress> {
  const segment = progress.plan.segments[progress.nextSegment];
  const barrier = segment?.kind === "barrier" ? progress.calls[segment.batchIndex] : undefined;
  if (!barrier) throw new Error(`step ${progress.stepIndex} is not waiting at a barrier`);
  if (action.kind === "cancel") {
    return invalidateRemaining(
      environment,
      progress,
      action.scope === "run" ? CANCELLED_RUN : CANCELLED_TURN,
    );
  }
  if (action.kind === "deny") {
    const message = `${action.actor} denied ${barrier.name}${action.reason ? `: ${action.reason}` : ""}`;
    return invalidateRemaining(
      environment,
      progress,
      { code: "denied", message },
      { status: "denied", result: null, error: { code: "denied", message: `Denied: ${message}.` } },
    );
  }
  const outcome = await executeCall(environment, progress.stepIndex, barrier, environment.stepSignal());
  const after: StepProgress = {
    ...progress,
    nextSegment: progress.nextSegment + 1,
    outcomes: { ...progress.outcomes, [barrier.batchIndex]: outcome },
  };
  if (outcome.status === "ok") return after;
  return invalidateRemaining(environment, after, {
    code: "gated_call_failed",
    message: `the approval-gated call ${barrier.name} (batchIndex ${barrier.batchIndex}) failed`,
  });
}

/** What the log gets of a failure: its message and the message of its cause. */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (cause: ${error.cause.message})` : "";
  return `${error.message}${cause}`;
}
