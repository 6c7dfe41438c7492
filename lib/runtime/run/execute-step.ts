import { RuntimeError } from "../errors";
import type { RunEvent, RunEventOf } from "../events/run-events";
import type { PreflightedCall } from "../planner/preflight";
import type { ToolRegistry } from "../tools/tool-registry";
import { inSpan } from "../tracing";
import { computeTurnDigest } from "../turn-digest";
import type { ApprovalRecord } from "./approval-records";
import {
  createSettleBatcher,
  executeCall,
  runStartedCall,
  TOOL_CHANGED,
  TOOL_UNVERIFIABLE,
} from "./execute-call";
import type { RunEnvironment } from "./run-environment";
import { stopsTheWorker } from "./run-errors";
import type { CallOutcome, PendingTurn, RunError, ShownToolDefinition } from "./run-types";
import { type StepProgress, SUSPENDED_STATE_VERSION } from "./suspended-state";
import { automaticApprovals } from "./tool-allowances";
import { voidApproval } from "./void-approval";

/** What a worker that claimed a waiting run does with the barrier it waits at. */
export type BarrierAction =
  /** `started`: the decision's audit write already started the barrier call. */
  | { kind: "approve"; started?: boolean }
  | { kind: "deny"; reason: string | null; actor: string }
  /** Nobody decided in time: the barrier settles `expired`, never `denied`. */
  | { kind: "expire" }
  | { kind: "cancel"; scope: "turn" | "run" };

export type StepResult =
  | { kind: "suspended" }
  | { kind: "settled"; progress: StepProgress; cancelled: "turn" | "run" | null };

/**
 * Runs a step's segments from `progress.nextSegment`: each wave's calls
 * together (the plan already keeps waves within the cap and stateful calls
 * alone), every wave settling before the next starts. At a barrier the run
 * suspends durably (docs/planning-rules.md#after-a-barrier). A cancellation seen between segments
 * invalidates every call not yet run.
 */
export async function executeStep(environment: RunEnvironment, progress: StepProgress): Promise<StepResult> {
  const { store, runId } = environment;
  const signal = environment.stepSignal();
  let current = progress;
  const segments = current.plan.segments;
  const cancelWith = async (scope: "turn" | "run"): Promise<StepResult> => ({
    kind: "settled",
    progress: await invalidateRemaining(
      environment,
      current,
      scope === "run" ? CANCELLED_RUN : CANCELLED_TURN,
    ),
    cancelled: scope,
  });
  for (let index = current.nextSegment; index < segments.length; index += 1) {
    const segment = segments[index];
    if (!segment) break;
    if (segment.kind === "barrier") {
      const cancelled = await store.takeCancelRequest(runId, environment.claimToken);
      if (cancelled) return cancelWith(cancelled);
      const gate = current.calls[segment.batchIndex];
      if (gate && current.approvedGates?.[segment.batchIndex] !== undefined) {
        // Approved with an earlier gate of this turn: it runs without waiting again.
        current = await runApprovedBarrier(environment, { ...current, nextSegment: index }, gate, []);
        index = current.nextSegment - 1;
        continue;
      }
      await suspendAtBarrier(environment, { ...current, nextSegment: index });
      return { kind: "suspended" };
    }
    // A recovered wave runs only what had not settled before its worker was lost.
    const unsettled = segment.batchIndexes.filter((batchIndex) => !(String(batchIndex) in current.outcomes));
    // One write starts the whole wave, and refuses to while a cancel is pending: then the cancel is taken.
    // Calls a grant let through are audited as automatic approvals in the write that starts them.
    const approvals = automaticApprovals(
      runId,
      unsettled.flatMap((batchIndex) => current.calls[batchIndex] ?? []),
    );
    for (;;) {
      const started = await startWave(environment, current.stepIndex, unsettled, approvals);
      if (!("cancelPending" in started)) break;
      const cancelled = await store.takeCancelRequest(runId, environment.claimToken);
      if (cancelled) return cancelWith(cancelled);
    }
    const settle = createSettleBatcher(environment, current.stepIndex);
    const waveOf = current;
    const settled = await inSpan(
      "wave",
      { "tool_playground.wave.index": waveOf.completedWaves, "tool_playground.wave.size": unsettled.length },
      () =>
        Promise.all(
          unsettled.map(async (batchIndex) => {
            const call = waveOf.calls[batchIndex];
            if (!call) throw new Error(`plan names batchIndex ${batchIndex}, which the step does not have`);
            return [batchIndex, await runStartedCall(environment, call, signal, settle)] as const;
          }),
        ),
    );
    current = {
      ...current,
      nextSegment: index + 1,
      completedWaves: current.completedWaves + 1,
      outcomes: { ...current.outcomes, ...Object.fromEntries(settled) },
    };
  }
  return { kind: "settled", progress: { ...current, nextSegment: segments.length }, cancelled: null };
}

export const CANCELLED_TURN: RunError = {
  code: "turn_cancelled",
  message: "the operator cancelled this turn",
};
export const CANCELLED_RUN: RunError = { code: "run_cancelled", message: "the operator cancelled the run" };

/**
 * Settles every call of the step that has not run: `invalidated` with the
 * reason (docs/planning-rules.md#after-a-barrier), except `firstOutcome`, which replaces the invalidation of
 * the first of them (a denied barrier is `denied`, not `invalidated`).
 */
export async function invalidateRemaining(
  environment: RunEnvironment,
  progress: StepProgress,
  reason: RunError,
  firstOutcome?: CallOutcome,
): Promise<StepProgress> {
  const unexecuted = unexecutedCalls(progress);
  if (unexecuted.length === 0) return { ...progress, nextSegment: progress.plan.segments.length };
  const settled = unexecuted.map((batchIndex, position) => ({
    batchIndex,
    outcome:
      position === 0 && firstOutcome
        ? firstOutcome
        : {
            status: "invalidated" as const,
            result: null,
            // The reason's code is the invalidation's own record (calls_invalidated); people read words.
            error: { code: "invalidated", message: `Not executed: ${reason.message}.` },
          },
  }));
  await environment.store.invalidateCalls(
    environment.runId,
    environment.claimToken,
    progress.stepIndex,
    settled,
    reason.code,
  );
  return {
    ...progress,
    nextSegment: progress.plan.segments.length,
    outcomes: {
      ...progress.outcomes,
      ...Object.fromEntries(settled.map((entry) => [entry.batchIndex, entry.outcome])),
    },
  };
}

/** batchIndexes of the step's segments from `nextSegment` on, in execution order. */
export function unexecutedCalls(progress: StepProgress): number[] {
  return progress.plan.segments
    .slice(progress.nextSegment)
    .flatMap((segment) => (segment.kind === "wave" ? segment.batchIndexes : [segment.batchIndex]))
    .filter((batchIndex) => !(String(batchIndex) in progress.outcomes));
}

/**
 * The pending turn at the barrier `progress.nextSegment`: the barrier, then
 * every retained call; with the definitions of the tools defined elsewhere
 * whose fingerprints its calls carry (as `registry` lists them), for the
 * approver.
 */
export function buildPendingTurn(progress: StepProgress, registry?: ToolRegistry): PendingTurn {
  const calls = unexecutedCalls(progress).map((batchIndex) => {
    const call = progress.calls[batchIndex];
    if (!call) throw new Error(`pending batchIndex ${batchIndex} is not a call of the step`);
    const { id, name, arguments: text, toolFingerprint } = call;
    return { id, name, arguments: text, batchIndex, ...(toolFingerprint ? { toolFingerprint } : {}) };
  });
  const tools = registry ? shownDefinitions(calls, registry) : [];
  const quorum = quorumOf(progress);
  return {
    turnDigest: computeTurnDigest(calls),
    calls,
    gates: gatesOf(progress),
    ...(tools.length > 0 ? { tools } : {}),
    ...(quorum > 1 ? { quorum } : {}),
  };
}

/**
 * How many distinct people must approve the barrier a step waits at: the quorum of the policy
 * rule that gated it (docs/policies.md#quorum), 1 when no rule asks for more.
 */
export function quorumOf(progress: StepProgress): number {
  const policy = barrierOf(progress)?.policy;
  return policy?.effect === "require" ? policy.quorum : 1;
}

/** Each fingerprinted tool of `calls` once, as it is defined now, if that is the definition the calls carry. */
function shownDefinitions(
  calls: ReadonlyArray<{ name: string; toolFingerprint?: string }>,
  registry: ToolRegistry,
): ShownToolDefinition[] {
  const shown = new Map<string, ShownToolDefinition>();
  for (const { name, toolFingerprint } of calls) {
    const tool = registry.get(name);
    if (!toolFingerprint || shown.has(name) || !tool?.origin || tool.fingerprint !== toolFingerprint)
      continue;
    shown.set(name, {
      name,
      fingerprint: toolFingerprint,
      description: tool.description,
      inputSchema: tool.parameters,
      origin: tool.origin,
    });
  }
  return [...shown.values()];
}

async function suspendAtBarrier(environment: RunEnvironment, progress: StepProgress): Promise<void> {
  const barrier = barrierOf(progress);
  const timeoutSeconds =
    (barrier && environment.registry.get(barrier.name)?.approvalTimeoutSeconds) ??
    environment.approvalTimeoutSeconds;
  const pending = {
    ...buildPendingTurn(progress, environment.registry),
    ...(timeoutSeconds
      ? { expiresAt: new Date(environment.now() + timeoutSeconds * 1_000).toISOString() }
      : {}),
  };
  await environment.store.suspendRun(environment.runId, environment.claimToken, {
    ...progress,
    schemaVersion: SUSPENDED_STATE_VERSION,
    pending,
  });
}

/**
 * Starts a wave's calls in one write, with the automatic approvals of those a
 * grant let through. When that audit cannot be stored, nothing starts and
 * the run fails `audit_failed`: a call is never let through unaudited.
 */
async function startWave(
  environment: RunEnvironment,
  stepIndex: number,
  batchIndexes: readonly number[],
  approvals: readonly ApprovalRecord[],
) {
  try {
    return await environment.store.startCalls(
      environment.runId,
      environment.claimToken,
      stepIndex,
      batchIndexes,
      {
        wave: true,
        ...(approvals.length > 0 ? { approvals } : {}),
      },
    );
  } catch (error) {
    // A database out of reach is no refusal of the audit: the worker stops, and recovery goes on.
    if (approvals.length === 0 || stopsTheWorker(error)) throw error;
    throw new RuntimeError(
      "audit_failed",
      `The automatic approval of ${approvals.map((row) => row.toolName).join(", ")} could not be recorded in the audit log, so nothing was executed.`,
      { cause: error },
    );
  }
}

/** The event that says a worker picked a run up at its barrier to apply `action`. */
export function resumedEvent(stepIndex: number, action: BarrierAction): RunEventOf<"run_resumed"> {
  return {
    type: "run_resumed",
    payload: { stepIndex, action: action.kind === "cancel" ? `cancel_${action.scope}` : action.kind },
  };
}

/** The batchIndexes of the gates from the step's next segment on, in order: the barrier first. */
export function gatesOf(progress: StepProgress): number[] {
  return progress.plan.segments
    .slice(progress.nextSegment)
    .flatMap((segment) => (segment.kind === "barrier" ? [segment.batchIndex] : []));
}

/** What the model is told with the outcome of a call whose arguments a person changed before approving it. */
export function describeEdit(executedArguments: string): string {
  return `A person changed this call's arguments before approving it; it ran with ${executedArguments}.`;
}

/** The call a step stopped at waits for a decision: the barrier of its next segment. */
export function barrierOf(progress: StepProgress) {
  const segment = progress.plan.segments[progress.nextSegment];
  return segment?.kind === "barrier" ? progress.calls[segment.batchIndex] : undefined;
}

/**
 * Applies a decision or cancellation to the barrier a step waits at (docs/planning-rules.md#after-a-barrier):
 * an approved barrier runs alone, and the calls after it run only if it
 * succeeded; a denial, a failure of the gated call or a cancellation
 * invalidates every unexecuted later call.
 */
export async function resolveBarrier(
  environment: RunEnvironment,
  progress: StepProgress,
  action: BarrierAction,
): Promise<StepProgress> {
  const barrier = barrierOf(progress);
  if (!barrier) throw new Error(`step ${progress.stepIndex} is not waiting at a barrier`);
  const resumed = resumedEvent(progress.stepIndex, action);
  // An approval's resumption is announced in the write that starts the barrier: no extra round trip.
  if (action.kind !== "approve") {
    await environment.store.appendEvent(environment.runId, environment.claimToken, resumed);
  }
  if (action.kind === "cancel") {
    return invalidateRemaining(
      environment,
      progress,
      action.scope === "run" ? CANCELLED_RUN : CANCELLED_TURN,
    );
  }
  if (action.kind === "expire") {
    return invalidateRemaining(
      environment,
      progress,
      { code: "approval_expired", message: `nobody decided on ${barrier.name} in time` },
      {
        status: "expired",
        result: null,
        error: {
          code: "approval_expired",
          message: `No decision on ${barrier.name} came in time; its approval expired, so it was not run.`,
        },
      },
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
  return runApprovedBarrier(environment, progress, barrier, action.started ? "started" : [resumed]);
}

/**
 * Runs an approved barrier alone, its start stored first (or already stored,
 * `"started"`, by the write that audited its approval); the calls after it
 * go on only if it succeeded, and are invalidated otherwise (docs/planning-rules.md#after-a-barrier).
 */
async function runApprovedBarrier(
  environment: RunEnvironment,
  progress: StepProgress,
  barrier: PreflightedCall,
  start: "started" | readonly RunEvent[],
): Promise<StepProgress> {
  const outcome =
    start === "started"
      ? await runStartedCall(
          environment,
          barrier,
          environment.stepSignal(),
          createSettleBatcher(environment, progress.stepIndex),
        )
      : await executeCall(environment, progress.stepIndex, barrier, environment.stepSignal(), start);
  const after: StepProgress = {
    ...progress,
    nextSegment: progress.nextSegment + 1,
    outcomes: { ...progress.outcomes, [barrier.batchIndex]: outcome },
  };
  if (outcome.status === "ok") return after;
  const notSent = outcome.error?.code;
  if (notSent === TOOL_CHANGED || notSent === TOOL_UNVERIFIABLE) {
    await voidApproval(environment, progress, barrier, outcome.error?.message ?? notSent);
    return invalidateRemaining(environment, after, {
      code: notSent,
      message:
        notSent === TOOL_CHANGED
          ? `the definition of ${barrier.name} changed after its approval`
          : `the definition of ${barrier.name} could not be checked before it was sent`,
    });
  }
  return invalidateRemaining(environment, after, {
    code: "gated_call_failed",
    message: `the approval-gated call ${barrier.name} (batchIndex ${barrier.batchIndex}) failed`,
  });
}
