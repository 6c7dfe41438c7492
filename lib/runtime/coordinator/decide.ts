import { declaresWrite } from "../declares-write";
import { barrierOf, resumedEvent } from "../run/execute-step";
import { driveRun } from "../run/run-loop";
import type { RunRecord } from "../run/run-store";
import type { PendingTurn, RunStatus } from "../run/run-types";
import { computeTurnDigest, digestsEqual } from "../turn-digest";
import {
  type ClaimedRun,
  claimWaitingRun,
  decodeWaitingState,
  holdingClaim,
  readPendingTurn,
  requireRun,
  resumeClaimedRun,
} from "./claim-waiting-run";
import type { CoordinatorDependencies } from "./coordinator-dependencies";
import {
  type DecisionRefusedError,
  NotAuditableError,
  NotWaitingError,
  SelfApprovalError,
  StaleApprovalTurnError,
} from "./decision-errors";

/** A human decision on the pending turn it names (SPEC §5). */
export interface Decision {
  approve: boolean;
  turnDigest?: string | null;
  /** Who decides, by name (the audit shows it), and by user id when the host authenticated one. */
  actor: string;
  actorId?: string | null;
  reason?: string | null;
}

/** A decision that took effect, and the run's status once it was applied. */
export interface DecisionResult {
  outcome: "executed" | "denied";
  status: RunStatus;
}

/** A decision that took effect; `settled` is the run going on, until it next waits or ends. */
export interface StartedDecision {
  outcome: "executed" | "denied";
  settled: Promise<RunStatus>;
}

/**
 * The one place a decision is checked and applied (SPEC §5), in this order:
 * pre-claim decode (unreadable → `unreadable_state`, nothing claimed); gate 1
 * against the turn read before the claim (a digest that cannot match →
 * `stale_turn`, nothing claimed); atomic
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
  const { outcome, settled } = await startDecision(runId, decision, dependencies);
  return { outcome, status: await settled };
}

/**
 * {@link decide} up to the point where the decision has taken effect (claimed,
 * checked, audited, announced); it resolves there and the run goes on in
 * `settled`. For callers that must not wait for the rest of the run, such as
 * a browser tab whose server actions run one at a time. Refusals throw
 * exactly as in {@link decide}.
 */
export async function startDecision(
  runId: string,
  decision: Decision,
  dependencies: CoordinatorDependencies,
): Promise<StartedDecision> {
  const { store, claimsInFlight } = dependencies;
  if (claimsInFlight?.has(runId)) throw new NotWaitingError(runId, "being decided by another decision");
  const waiting = await requireRun(store, runId);
  // Decoded once, before anything is claimed: refusals of a run that cannot be decided cost no write.
  const { pending } = decodeWaitingState(waiting);
  await refuseUnmatchableDigest(waiting, pending, decision);
  refuseSelfApproval(waiting, decision, dependencies);
  if (claimsInFlight?.has(runId)) throw new NotWaitingError(runId, "being decided by another decision");
  claimsInFlight?.add(runId);
  let applied: Awaited<ReturnType<typeof applyDecision>>;
  let claim: ClaimedRun;
  try {
    claim = await claimWaitingRun(waiting, "decision", dependencies, { isDecoded: true });
    applied = await holdingClaim(store, runId, () => applyDecision(decision, claim, dependencies));
  } finally {
    claimsInFlight?.delete(runId);
  }
  const { environment, outcome, reason, started } = applied;
  const settled = driveRun(
    environment,
    resumeClaimedRun(
      claim,
      decision.approve ? { kind: "approve", started } : { kind: "deny", reason, actor: decision.actor },
    ),
  );
  return { outcome, settled };
}

/**
 * Gate 1 before the claim: a digest that cannot match the turn the run waits
 * at is refused without claiming, so a flood of wrong digests can never hold
 * the run away from the right one. The check after the claim stays: the turn
 * may change between this read and the claim.
 */
async function refuseUnmatchableDigest(
  waiting: RunRecord,
  pending: PendingTurn,
  decision: Decision,
): Promise<void> {
  const expected = await computeTurnDigest(pending.calls);
  const received = typeof decision.turnDigest === "string" ? decision.turnDigest : null;
  if (!digestsEqual(received, expected)) {
    throw new StaleApprovalTurnError(waiting.id, { ...pending, turnDigest: expected }, received);
  }
}

/**
 * Separation of duties: when the host requires it of the run (for every run,
 * or by the run's own policy), the person who started a run may not approve
 * its gated calls. They may still deny or cancel. Checked before the claim:
 * nothing is held for a refused approval.
 */
function refuseSelfApproval(
  waiting: RunRecord,
  decision: Decision,
  dependencies: CoordinatorDependencies,
): void {
  if (!decision.approve || !decision.actorId || decision.actorId !== waiting.startedById) return;
  if (dependencies.requiresDistinctApprover(waiting)) {
    throw new SelfApprovalError(waiting.id, readPendingTurn(waiting));
  }
}

/** Gates 1 and 2, the audit and the announcement of a decision on a claimed run (SPEC §5 steps 4–7). */
async function applyDecision(decision: Decision, claim: ClaimedRun, dependencies: CoordinatorDependencies) {
  const { store } = dependencies;
  const { run: claimed, claimToken, state } = claim;
  const runId = claimed.id;
  const expected = await computeTurnDigest(state.pending.calls);
  // Surfaces validate the body, but a digest that is not a string must still be a refusal, not a crash.
  const received = typeof decision.turnDigest === "string" ? decision.turnDigest : null;
  if (!digestsEqual(received, expected)) {
    await release(
      dependencies,
      claim,
      new StaleApprovalTurnError(runId, { ...state.pending, turnDigest: expected }, received),
    );
  }

  const reason = decision.reason ?? null;
  const outcome: DecisionResult["outcome"] = decision.approve ? "executed" : "denied";
  const announcement = (audited: boolean) => ({
    type: "approval_decided" as const,
    payload: {
      stepIndex: state.stepIndex,
      turnDigest: expected,
      approve: decision.approve,
      actor: decision.actor,
      actorId: decision.actorId ?? null,
      reason,
      audited,
      outcome,
    },
  });
  // The audit record, the announcement of the decision and an approved barrier's start go in one write.
  const barrier = barrierOf(state);
  const audited = await store.recordApproval(
    {
      runId,
      turnDigest: expected,
      approve: decision.approve,
      actor: decision.actor,
      actorId: decision.actorId ?? null,
      reason,
    },
    {
      claimToken,
      event: announcement(true),
      startBarrier:
        decision.approve && barrier
          ? { resumed: resumedEvent(state.stepIndex, { kind: "approve" }), batchIndex: barrier.batchIndex }
          : undefined,
    },
  );
  const environment = dependencies.createEnvironment(claimed, claimToken);
  if (!audited) {
    if (decision.approve && declaresWrite(state.pending.calls, environment.registry)) {
      await release(dependencies, claim, new NotAuditableError(runId, state.pending));
    }
    dependencies.log?.("a decision could not be audited; it proceeds because it executes no write", {
      runId,
      approve: decision.approve,
    });
    await store.appendEvent(runId, claimToken, announcement(false));
  }
  return { environment, outcome, reason, started: audited && decision.approve };
}

/** Gives a refused run back to the waiting state, then throws the refusal. */
async function release(
  dependencies: CoordinatorDependencies,
  { run: claimed, claimToken, state }: ClaimedRun,
  refusal: DecisionRefusedError,
): Promise<never> {
  const released = await dependencies.store.releaseRun(claimed.id, claimToken, claimed.state, {
    type: "run_released",
    payload: { stepIndex: state.stepIndex, ...state.pending, refusal: refusal.code },
  });
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
