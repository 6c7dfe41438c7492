import { declaresWrite } from "../declares-write";
import { RuntimeError } from "../errors";
import { runSteps } from "../run/run-loop";
import type { RunRecord } from "../run/run-store";
import type { RunStatus, SuspendedState } from "../run/run-types";
import { decodeSuspendedState, UnreadableStateError } from "../run/suspended-state";
import { computeTurnDigest, digestsEqual } from "../turn-digest";
import type { CoordinatorDependencies } from "./coordinator-dependencies";
import {
  type DecisionRefusedError,
  NotAuditableError,
  NotWaitingError,
  RunNotFoundError,
  StaleApprovalTurnError,
} from "./decision-errors";

/** A human decision on the pending turn it names (SPEC §5). */
export interface Decision {
  approve: boolean;
  turnDigest?: string | null;
  actor: string;
  reason?: string | null;
}

/** A decision that took effect, and the run's status once it was applied. */
export interface DecisionResult {
  outcome: "executed" | "denied";
  status: RunStatus;
}

/**
 * The one place a decision is checked and applied (SPEC §5), in this order:
 * pre-claim decode (unreadable → `unreadable_state`, nothing claimed); atomic
 * claim (lost → `not_waiting`); post-claim decode of the row won (unreadable →
 * the run is settled FAILED, its state kept); gate 1, the `turnDigest` against
 * the claimed pending turn in constant time (`stale_turn`, denials too); the
 * audit record; gate 2, an unaudited approval of a write-declaring turn
 * (`not_auditable`). A refusal releases the run to WAITING_FOR_APPROVAL with
 * its state as it was (a failed release settles it FAILED). Then the barrier
 * runs alone, or is denied, and the run goes on until it next waits or ends.
 * Throws a `DecisionRefusedError` subclass or `UnreadableStateError`.
 */
export async function decide(
  runId: string,
  decision: Decision,
  dependencies: CoordinatorDependencies,
): Promise<DecisionResult> {
  const { store } = dependencies;
  const waiting = await store.getRun(runId);
  if (!waiting) throw new RunNotFoundError(runId);
  if (waiting.status !== "WAITING_FOR_APPROVAL") throw new NotWaitingError(runId, waiting.status);
  decodeSuspendedState(runId, waiting.state);

  const claimToken = dependencies.createClaimToken();
  const claimed = await store.claimWaitingRun(runId, claimToken, dependencies.leaseMs);
  if (!claimed)
    throw new NotWaitingError(
      runId,
      (await store.getRun(runId))?.status ?? "gone",
      await currentPending(dependencies, runId),
    );

  // From here on this worker holds the claim: whatever goes wrong before the
  // run loop takes over must not leave the run RUNNING with no worker.
  let prepared: Awaited<ReturnType<typeof applyDecision>>;
  try {
    prepared = await applyDecision(runId, decision, claimed, claimToken, dependencies);
  } catch (error) {
    if (!(error instanceof RuntimeError)) {
      await store.forceFail(runId, {
        code: "internal_error",
        message: `The decision failed after the run was claimed: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    throw error;
  }
  const { state, environment, outcome, reason } = prepared;
  const status = await runSteps(environment, {
    transcript: state.transcript,
    modelCalls: claimed.modelCalls,
    nextStepIndex: state.stepIndex + 1,
    progress: state,
    barrierAction: decision.approve ? { kind: "approve" } : { kind: "deny", reason },
  });
  return { outcome, status };
}

/** Post-claim checks, audit and announcement of a decision (SPEC §5 steps 3–6). */
async function applyDecision(
  runId: string,
  decision: Decision,
  claimed: RunRecord,
  claimToken: string,
  dependencies: CoordinatorDependencies,
) {
  const { store } = dependencies;
  let state: SuspendedState;
  try {
    state = decodeSuspendedState(runId, claimed.state);
  } catch (error) {
    if (error instanceof UnreadableStateError) {
      await store.forceFail(runId, { code: error.code, message: error.message });
    }
    throw error;
  }

  const expected = await computeTurnDigest(state.pending.calls);
  // Surfaces validate the body, but a digest that is not a string must still be a refusal, not a crash.
  const received = typeof decision.turnDigest === "string" ? decision.turnDigest : null;
  if (!digestsEqual(received, expected)) {
    await release(
      dependencies,
      claimed,
      claimToken,
      new StaleApprovalTurnError(runId, { ...state.pending, turnDigest: expected }, received),
    );
  }

  const reason = decision.reason ?? null;
  const audited = await store.recordApproval({
    runId,
    turnDigest: expected,
    approve: decision.approve,
    actor: decision.actor,
    reason,
  });
  const environment = dependencies.createEnvironment(claimed, claimToken);
  if (!audited) {
    if (decision.approve && declaresWrite(state.pending.calls, environment.registry)) {
      await release(dependencies, claimed, claimToken, new NotAuditableError(runId, state.pending));
    }
    dependencies.log?.("a decision could not be audited; it proceeds because it executes no write", {
      runId,
      approve: decision.approve,
    });
  }

  const outcome: DecisionResult["outcome"] = decision.approve ? "executed" : "denied";
  await store.appendEvent(runId, "approval_decided", {
    stepIndex: state.stepIndex,
    turnDigest: expected,
    approve: decision.approve,
    actor: decision.actor,
    reason,
    audited,
    outcome,
  });
  return { state, environment, outcome, reason };
}

/** Gives a refused run back to the waiting state, then throws the refusal. */
async function release(
  dependencies: CoordinatorDependencies,
  claimed: RunRecord,
  claimToken: string,
  refusal: DecisionRefusedError,
): Promise<never> {
  const released = await dependencies.store.releaseRun(claimed.id, claimToken, claimed.state);
  if (!released) {
    // Never leave a run RUNNING with no worker: fail it, loudly.
    await dependencies.store.forceFail(claimed.id, {
      code: "release_failed",
      message: `A refused decision (${refusal.code}) could not hand the run back to the waiting state.`,
    });
    throw new NotWaitingError(claimed.id, "FAILED");
  }
  throw refusal;
}

/** The pending turn of a run that is waiting now, for refusals that re-signal it. */
export async function currentPending(dependencies: CoordinatorDependencies, runId: string) {
  const run = await dependencies.store.getRun(runId);
  if (run?.status !== "WAITING_FOR_APPROVAL") return null;
  try {
    return decodeSuspendedState(runId, run.state).pending;
  } catch {
    return null;
  }
}
