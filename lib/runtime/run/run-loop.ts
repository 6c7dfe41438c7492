import { RuntimeError } from "../errors";
import type { TranscriptEntry } from "../model/model";
import { legacyReissueAfter } from "../planner/plan-legacy";
import { inSpan, runTraceContext } from "../tracing";
import { type BarrierAction, describeEdit, executeStep, resolveBarrier } from "./execute-step";
import { type Between, planNextStep } from "./plan-next-step";
import type { RunEnvironment } from "./run-environment";
import { LostClaimError, RepairExhaustedError, stopsTheWorker, UnsettledCallsError } from "./run-errors";
import type { RunError, RunStatus } from "./run-types";
import { computeStepMetrics } from "./step-metrics";
import type { StepProgress } from "./suspended-state";

/** Where a worker picks a run up: a fresh run, or a step part-way through. */
export interface RunStart extends Between {
  progress?: StepProgress;
  /** With `progress` stopped at a barrier: how to resolve it before going on. */
  barrierAction?: BarrierAction;
  /** Repairs in a row so far (a recovered run keeps counting towards `maxRepairAttempts`). */
  repairAttempts?: number;
}

/**
 * Drives a claimed run until it suspends at a barrier or ends (docs/planning-rules.md#after-a-barrier):
 * model completion → plan → execute → next completion. `reply` continues
 * with the next completion; a lone successful `finish` completes the run; a
 * repair is sent back at most `maxRepairAttempts` times in a row. Never
 * throws: a failure ends the run FAILED with the error's code; a lost claim
 * leaves the run to its new holder; a write that could not be stored (the
 * database unreachable, a call's outcome lost) stops this worker, which lets
 * its lease lapse so that recovery goes on from what is stored, never the
 * run's end. Returns the run's status as this worker left it.
 */
export async function driveRun(environment: RunEnvironment, start: RunStart): Promise<RunStatus> {
  // One span per stretch a worker drives, in the run's own trace: a wait for a person is the gap between two.
  return inSpan(
    "run",
    {
      "tool_playground.run.id": environment.runId,
      "tool_playground.run.policy": environment.executionPolicy,
    },
    async (span) => {
      const lease = keepLease(environment);
      try {
        const status = await drive(environment, start);
        span.setAttribute("tool_playground.run.status", status);
        return status;
      } catch (error) {
        if (LostClaimError.isInstance(error)) {
          span.setAttribute("tool_playground.run.claim_lost", true);
          return "RUNNING";
        }
        if (stopsTheWorker(error)) {
          span.setAttribute("tool_playground.run.worker_stopped", true);
          return stopWorker(environment, error);
        }
        const status = await failRun(environment, error);
        span.setAttribute("tool_playground.run.status", status);
        return status;
      } finally {
        lease.stop();
        environment.endDrive();
      }
    },
    runTraceContext(environment.runId),
  );
}

/**
 * Renews the claim's lease every third of its length while the worker drives
 * the run, so a long tool or model call never looks like a dead worker. When
 * the claim turns out to be lost (another instance took the run over), what
 * is in flight is aborted; the next write then fails fenced, and this worker
 * stops. A failed renewal (the database unreachable) is tried again: the
 * lease may well still hold.
 */
function keepLease(environment: RunEnvironment): { stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let isStopped = false;
  const schedule = () => {
    timer = setTimeout(renew, Math.max(1, Math.floor(environment.leaseMs / 3)));
    // A pending renewal never keeps a process alive on its own.
    (timer as { unref?: () => void }).unref?.();
  };
  const renew = async () => {
    if (isStopped) return;
    let held = true;
    try {
      held = await environment.store.renewLease(
        environment.runId,
        environment.claimToken,
        environment.leaseMs,
      );
    } catch (error) {
      environment.log?.("the run's lease could not be renewed; trying again", {
        runId: environment.runId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    if (isStopped) return;
    if (!held) {
      environment.log?.("another worker took the run over; this one stops", { runId: environment.runId });
      environment.abortInFlight();
      return;
    }
    schedule();
  };
  schedule();
  return {
    stop() {
      isStopped = true;
      clearTimeout(timer);
    },
  };
}

async function drive(environment: RunEnvironment, start: RunStart): Promise<RunStatus> {
  let between: Between = start;
  let progress = start.progress;
  let repairAttempts = start.repairAttempts ?? 0;
  // Whether a cancel may be pending between steps: checked before the first completion, then
  // whenever the write that finished the last step saw one.
  let mayBeCancelled = true;
  if (progress && start.barrierAction) {
    progress = await resolveBarrier(environment, progress, start.barrierAction);
    if (start.barrierAction.kind === "cancel" && start.barrierAction.scope === "run") {
      await completeStep(environment, progress, { runCancelled: true });
      return endRun(environment, "CANCELLED");
    }
  }

  for (;;) {
    if (progress) {
      const executing = progress;
      const result = await inSpan("step", { "tool_playground.step.index": executing.stepIndex }, () =>
        executeStep(environment, executing),
      );
      if (result.kind === "suspended") return "WAITING_FOR_APPROVAL";
      const completed = await completeStep(environment, result.progress, {
        runCancelled: result.cancelled === "run",
      });
      between = {
        ...between,
        transcript: completed.transcript,
        // Legacy policy: the calls it cut after the gate, asked for again now that the gate ran.
        reissue: legacyReissueAfter({
          plan: result.progress.plan,
          metrics: { cap: environment.limits.maxParallelToolCalls },
          calls: result.progress.calls.map((call) => ({
            ...call,
            status: result.progress.outcomes[call.batchIndex]?.status ?? "pending",
          })),
        }),
      };
      mayBeCancelled = completed.cancelPending !== null;
      if (result.cancelled === "run") return endRun(environment, "CANCELLED");
      if (finishedBy(result.progress)) return endRun(environment, "COMPLETED");
      progress = undefined;
    }

    if (mayBeCancelled) {
      // A turn cancelled between steps has nothing left to stop: only a cancelled run ends here.
      if ((await environment.store.takeCancelRequest(environment.runId, environment.claimToken)) === "run") {
        return endRun(environment, "CANCELLED");
      }
      mayBeCancelled = false;
    }
    const next = await planNextStep(environment, between);
    if (next.kind === "cancelled") {
      if (next.scope === "run") return endRun(environment, "CANCELLED");
      continue; // the turn had no calls yet: ask the model again
    }
    const nextStepIndex = between.nextStepIndex + 1;
    if (next.kind === "repair") {
      repairAttempts += 1;
      if (repairAttempts > environment.limits.maxRepairAttempts)
        throw new RepairExhaustedError(environment.limits.maxRepairAttempts, next.problems);
      between = {
        transcript: next.transcript,
        modelCalls: next.modelCalls,
        nextStepIndex,
        reissue: next.reissue,
      };
      mayBeCancelled = next.cancelPending !== null;
      continue;
    }
    repairAttempts = 0;
    between = { transcript: next.progress.transcript, modelCalls: next.modelCalls, nextStepIndex };
    progress = next.progress;
  }
}

/**
 * Stores the step's final metrics and returns the transcript with every
 * call's outcome appended in original batch order, whatever order they
 * settled in (docs/planning-rules.md#after-a-barrier), and whether a cancel is pending.
 */
async function completeStep(
  environment: RunEnvironment,
  progress: StepProgress,
  options: { runCancelled: boolean },
): Promise<{ transcript: TranscriptEntry[]; cancelPending: "turn" | "run" | null }> {
  const outcomes = Object.values(progress.outcomes);
  const metrics = computeStepMetrics(progress.plan, progress.calls.length, environment.limits, {
    completedWaves: progress.completedWaves,
    invalidatedCount: outcomes.filter((outcome) => outcome.status === "invalidated").length,
  });
  const { cancelPending, allowedTools } = await environment.store.finishStep(
    environment.runId,
    environment.claimToken,
    progress.stepIndex,
    metrics,
    options,
  );
  // A grant revoked while this step ran applies from the next one.
  environment.allowances.current = allowedTools;
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
      ...(progress.edits?.[call.batchIndex] !== undefined ? { note: describeEdit(call.arguments) } : {}),
    };
  });
  return { transcript: [...progress.transcript, ...results], cancelPending };
}

/** A lone, successful `finish` call ends the run. */
function finishedBy(progress: StepProgress): boolean {
  const [only, ...others] = progress.calls;
  return (
    others.length === 0 && only?.name === "finish" && progress.outcomes[only.batchIndex]?.status === "ok"
  );
}

async function endRun(environment: RunEnvironment, status: "COMPLETED" | "CANCELLED"): Promise<RunStatus> {
  await environment.store.finishRun(environment.runId, environment.claimToken, status, null);
  return status;
}

/**
 * This worker stops driving the run without ending it: something it had to
 * store could not be. What it has in flight is aborted, and its lease is left
 * to lapse (it is not renewed any more), so that the recovery sweep takes the
 * run over from what is stored, as after a crash of this process.
 */
export function stopWorker(environment: RunEnvironment, error: unknown): RunStatus {
  environment.log?.("a write could not be stored; this worker stops and leaves the run to recovery", {
    runId: environment.runId,
    cause: describeCause(error),
  });
  environment.abortInFlight();
  return "RUNNING";
}

/**
 * Ends the run FAILED with what may be said of the error; the details go to
 * the log. When that end cannot be stored for want of a database, the run is
 * left to recovery instead (a passing outage never fails a run); when the
 * store refuses it because a started call has no outcome, the run is settled
 * FAILED whoever holds it, those calls `interrupted` (`forceFail`).
 */
export async function failRun(environment: RunEnvironment, error: unknown): Promise<RunStatus> {
  // An unexpected error's message may carry SQL or driver details: those go to the log, never into the run.
  const runError: RunError = RuntimeError.isInstance(error)
    ? { code: error.code, message: error.message }
    : { code: "internal_error", message: "The run failed unexpectedly; the server log has the details." };
  environment.log?.("run failed", { runId: environment.runId, ...runError, cause: describeCause(error) });
  try {
    await environment.store.finishRun(environment.runId, environment.claimToken, "FAILED", runError);
  } catch (finishError) {
    if (stopsTheWorker(finishError)) return stopWorker(environment, finishError);
    if (!UnsettledCallsError.isInstance(finishError)) {
      environment.log?.("a failed run could not be finished; failing it whoever holds it", {
        runId: environment.runId,
        cause: describeCause(finishError),
      });
    }
    if (!(await environment.store.forceFail(environment.runId, runError))) return "RUNNING";
  }
  return "FAILED";
}

/** What the log gets of a failure: its message and the message of its cause. */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (cause: ${error.cause.message})` : "";
  return `${error.message}${cause}`;
}
