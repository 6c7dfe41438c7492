import { ToolError } from "../errors";
import type { RunEvent } from "../events/run-events";
import type { PreflightedCall } from "../planner/preflight";
import type { ToolDefinition } from "../tools/tool-definition";
import type { ToolProgress } from "../tools/workspace";
import { inSpan } from "../tracing";
import type { RunEnvironment } from "./run-environment";
import { LostClaimError, OutcomeNotStoredError } from "./run-errors";
import type { CallOutcome, RunError } from "./run-types";

/**
 * Stores the outcomes of one step's calls, several in one write: outcomes
 * that arrive together (the calls of a wave whose tools answer at once) are
 * written by one `settleCalls`; one that arrives alone is written alone.
 * Each caller learns whether its own outcome was stored.
 */
export function createSettleBatcher(environment: RunEnvironment, stepIndex: number) {
  let queued: Array<{
    batchIndex: number;
    outcome: CallOutcome;
    resolve(): void;
    reject(error: unknown): void;
  }> = [];
  const flush = async () => {
    const batch = queued;
    queued = [];
    try {
      await environment.store.settleCalls(
        environment.runId,
        environment.claimToken,
        stepIndex,
        batch.map(({ batchIndex, outcome }) => ({ batchIndex, outcome })),
      );
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  };
  const settle = (batchIndex: number, outcome: CallOutcome) =>
    new Promise<void>((resolve, reject) => {
      // Outcomes settling in the same turn of the event loop queue up behind the first one's flush.
      if (queued.length === 0) queueMicrotask(() => queueMicrotask(() => void flush()));
      queued.push({ batchIndex, outcome, resolve, reject });
    });
  return Object.assign(settle, { stepIndex });
}

export type SettleCall = ReturnType<typeof createSettleBatcher>;

/**
 * Runs a call whose start is already stored, then stores its outcome. A
 * tool's failure is an `error` outcome, never a throw. An outcome that cannot
 * be stored, a read's as much as a write's, throws
 * {@link OutcomeNotStoredError}: the worker stops and recovery settles the
 * call from what is stored, as after a crash. A run never goes on (or ends)
 * past a call whose outcome is not stored.
 */
export async function runStartedCall(
  environment: RunEnvironment,
  call: PreflightedCall,
  signal: AbortSignal,
  settle: SettleCall,
): Promise<CallOutcome> {
  const started = performance.now();
  const outcome = await inSpan(
    "tool_call",
    {
      "tool_playground.tool.name": call.name,
      "tool_playground.tool.class": call.resourceClass ?? "unknown",
      "tool_playground.tool.effect": call.effect,
      "tool_playground.call.batch_index": call.batchIndex,
    },
    async (span) => {
      const ran = await runTool(environment, call, signal, settle.stepIndex);
      span.setAttribute("tool_playground.call.status", ran.status);
      if (ran.error) span.setAttribute("error.type", ran.error.code);
      return ran;
    },
  );
  environment.telemetry?.toolCallSettled({
    tool: call.name,
    resourceClass: call.resourceClass,
    effect: call.effect,
    status: outcome.status,
    durationMs: performance.now() - started,
  });
  try {
    await settle(call.batchIndex, outcome);
  } catch (error) {
    if (LostClaimError.isInstance(error)) throw error;
    throw new OutcomeNotStoredError(environment.runId, call, error);
  }
  return outcome;
}

/**
 * Runs one call on its own (an approved barrier): stores its start (so a
 * write never runs unrecorded), executes it, stores its outcome.
 */
export async function executeCall(
  environment: RunEnvironment,
  stepIndex: number,
  call: PreflightedCall,
  signal: AbortSignal,
  /** Events that lead up to the call, announced in the same write as its start. */
  first: readonly RunEvent[] = [],
): Promise<CallOutcome> {
  await environment.store.startCalls(
    environment.runId,
    environment.claimToken,
    stepIndex,
    [call.batchIndex],
    {
      wave: false,
      first,
    },
  );
  return runStartedCall(environment, call, signal, createSettleBatcher(environment, stepIndex));
}

/** The error of a call a cancellation interrupted: it had started, so it may have done part of its work. */
const CANCELLED_WHILE_RUNNING = (name: string) => ({
  code: "cancelled",
  message: `${name} was stopped by a cancellation while it ran; it may have done part of its work.`,
});

async function runTool(
  environment: RunEnvironment,
  call: PreflightedCall,
  signal: AbortSignal,
  stepIndex: number,
): Promise<CallOutcome> {
  const tool = environment.registry.get(call.name);
  // Any call of a tool defined elsewhere is checked, fingerprint or not: a missing one never matches.
  if (call.toolFingerprint !== undefined || tool?.fingerprint !== undefined || tool?.currentFingerprint) {
    const changed = await checkToolDefinition(tool, call, signal);
    if (changed) return { status: "error", result: null, error: changed };
  }
  if (!tool || !call.parsedArguments) {
    // Unreachable for a planned call; kept so a bad plan fails one call, not the run.
    return {
      status: "error",
      result: null,
      error: { code: "not_executable", message: `Call ${call.id} cannot be executed.` },
    };
  }
  if (signal.aborted) {
    return {
      status: "error",
      result: null,
      error: { code: "cancelled", message: `${call.name} was cancelled before it started.` },
    };
  }
  const progress = progressReporter(environment, stepIndex, call.batchIndex);
  try {
    const result = await tool.execute(call.parsedArguments, {
      ...environment.createToolContext(signal),
      reportProgress: progress.report,
      call: {
        runId: environment.runId,
        stepIndex,
        batchIndex: call.batchIndex,
        id: call.id,
        name: call.name,
        arguments: call.arguments,
      },
    });
    return { status: "ok", result: result ?? null, error: null };
  } catch (error) {
    // Stopped by a cancellation while it ran: not a failure of the tool, and not "never ran" either.
    if (signal.aborted) return { status: "error", result: null, error: CANCELLED_WHILE_RUNNING(call.name) };
    if (ToolError.isInstance(error))
      return {
        status: "error",
        result: null,
        error: { code: ToolError.codeOf(error), message: error.message },
      };
    environment.log?.("a tool threw an unexpected error", { name: call.name, error: String(error) });
    return {
      status: "error",
      result: null,
      error: {
        code: "tool_crashed",
        // Not the error's own message: an unexpected failure (a database error, say) may carry SQL.
        message: `${call.name} failed unexpectedly; the server log has the details.`,
      },
    };
  } finally {
    // Nothing more to say once it has answered: a report still waiting is dropped.
    progress.stop();
  }
}

/** The error code of a call that was not sent because its tool's definition changed after it was planned or approved. */
export const TOOL_CHANGED = "tool_changed";
/** The error code of a call that was not sent because its tool's definition could not be read again. */
export const TOOL_UNVERIFIABLE = "tool_unverifiable";

/**
 * A call of a tool defined elsewhere is sent only if the tool's definition,
 * read afresh right before, is still the one the call was planned and
 * approved with (its fingerprint). Otherwise it is not sent, and this says
 * why: `tool_changed` (another definition, or none), `tool_unverifiable`
 * (the server could not be asked), `cancelled` (a cancel came meanwhile).
 * Null when it may be sent.
 */
async function checkToolDefinition(
  tool: ToolDefinition | undefined,
  call: PreflightedCall,
  signal: AbortSignal,
): Promise<RunError | null> {
  const shown = call.toolFingerprint;
  const notSent = (code: string, why: string) => ({
    code,
    message: `${call.name} was not sent: ${why}. ${
      shown
        ? `It was planned and approved with the definition shown then (fingerprint ${shown.slice(0, 12)}…).`
        : "It was planned without a fingerprint of its definition, so no definition can match it."
    }`,
  });
  if (!tool) return notSent(TOOL_CHANGED, "its tool is no longer offered");
  let current: string | null;
  try {
    current = tool.currentFingerprint ? await tool.currentFingerprint(signal) : (tool.fingerprint ?? null);
  } catch (error) {
    if (signal.aborted)
      return { code: "cancelled", message: `${call.name} was cancelled before it was sent.` };
    // Not knowing the definition is not the same as knowing it unchanged: fail closed.
    const why = ToolError.isInstance(error) ? error.message : "its definition could not be read again";
    return notSent(TOOL_UNVERIFIABLE, why.replace(/\.$/, ""));
  }
  if (signal.aborted) return { code: "cancelled", message: `${call.name} was cancelled before it was sent.` };
  if (current === null) return notSent(TOOL_CHANGED, "its server no longer lists it");
  if (current !== shown)
    return notSent(
      TOOL_CHANGED,
      `its server changed its definition (fingerprint now ${current.slice(0, 12)}…)`,
    );
  return null;
}

/** Progress events of one call: at most one every this many ms (the last one waits its turn, never lost). */
const PROGRESS_INTERVAL_MS = 500;

/**
 * Announces a running call's progress as `call_progress` events, at most one
 * every {@link PROGRESS_INTERVAL_MS}: a report that comes sooner replaces the
 * one waiting. Best effort: a report that cannot be stored is dropped (the
 * call goes on; its outcome is what is recorded).
 */
function progressReporter(environment: RunEnvironment, stepIndex: number, batchIndex: number) {
  let lastSentAt = 0;
  let waiting: ToolProgress | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let isStopped = false;
  const send = (progress: ToolProgress) => {
    lastSentAt = Date.now();
    environment.store
      .appendEvent(environment.runId, environment.claimToken, {
        type: "call_progress",
        payload: {
          stepIndex,
          batchIndex,
          progress: progress.progress,
          total: progress.total ?? null,
          message: progress.message?.slice(0, 500) ?? null,
        },
      })
      .catch(() => {});
  };
  return {
    report(progress: ToolProgress) {
      if (isStopped || !Number.isFinite(progress.progress)) return;
      const wait = lastSentAt + PROGRESS_INTERVAL_MS - Date.now();
      if (wait <= 0 && timer === null) return send(progress);
      waiting = progress;
      timer ??= setTimeout(
        () => {
          timer = null;
          if (waiting && !isStopped) send(waiting);
          waiting = null;
        },
        Math.max(0, wait),
      );
    },
    stop() {
      isStopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
