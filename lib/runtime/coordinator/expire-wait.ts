import { barrierOf } from "../run/execute-step";
import { driveRun } from "../run/run-loop";
import type { PendingTurn, RunStatus } from "../run/run-types";
import { computeCallDigest, computeTurnDigest } from "../turn-digest";
import {
  type ClaimedRun,
  claimWaitingRun,
  decodeWaitingState,
  holdingClaim,
  resumeClaimedRun,
} from "./claim-waiting-run";
import type { CoordinatorDependencies } from "./coordinator-dependencies";

/** Who the audit names for an expiry: nobody decided; the wait's deadline did. */
export const EXPIRY_ACTOR = "approval timeout";

/** Whether the wait for `pending` is over by `now`. */
export function isPastDeadline(
  pending: PendingTurn,
  now: number,
): pending is PendingTurn & { expiresAt: string } {
  return pending.expiresAt !== undefined && Date.parse(pending.expiresAt) <= now;
}

/**
 * Ends a wait nobody decided in time. Like a decision, it claims the run
 * atomically (a decision that won first keeps the run) and checks the
 * deadline again on the row it won; then it audits the expiry (`kind:
 * "expiry"`, never a denial) and announces `approval_expired` in one write,
 * and the run goes on: the barrier settles `expired`, the calls after it
 * are invalidated, and the model is told. An expiry executes nothing, so an
 * expiry the audit cannot store still goes on, announced `audited: false`.
 * Null when there was nothing to expire (not waiting, not yet due, or
 * another claim won).
 */
export async function expireWait(
  runId: string,
  dependencies: CoordinatorDependencies,
): Promise<{ settled: Promise<RunStatus> } | null> {
  const { store, claimsInFlight } = dependencies;
  const waiting = await store.getRun(runId);
  if (waiting?.status !== "WAITING_FOR_APPROVAL") return null;
  if (claimsInFlight?.has(runId)) return null;
  let pending: PendingTurn;
  try {
    ({ pending } = decodeWaitingState(waiting));
  } catch {
    return null; // an unreadable state is refused to whoever decides it; nothing to expire here
  }
  if (!isPastDeadline(pending, dependencies.now())) return null;

  claimsInFlight?.add(runId);
  let claim: ClaimedRun;
  try {
    claim = await claimWaitingRun(waiting, "expiry", dependencies, { isDecoded: true });
  } catch {
    return null; // a decision or cancel took the run first
  } finally {
    claimsInFlight?.delete(runId);
  }
  const { state, claimToken } = claim;
  if (!isPastDeadline(state.pending, dependencies.now())) {
    // The run waits at a later turn than the one read: it is not due. Handed back as it was.
    await store.releaseRun(runId, claimToken, claim.run.state, {
      type: "run_released",
      payload: { stepIndex: state.stepIndex, ...state.pending, refusal: "not_expired" },
    });
    return null;
  }
  const expiresAt = state.pending.expiresAt;
  const environment = await holdingClaim(store, runId, async () => {
    const barrier = barrierOf(state);
    if (!barrier) throw new Error(`run ${runId} is not waiting at a barrier`);
    const turnDigest = computeTurnDigest(state.pending.calls);
    const decisionId = crypto.randomUUID();
    const expired = (audited: boolean) => ({
      type: "approval_expired" as const,
      payload: {
        stepIndex: state.stepIndex,
        turnDigest,
        batchIndex: barrier.batchIndex,
        expiresAt,
        decisionId,
        audited,
      },
    });
    const argumentsDigest = computeCallDigest(barrier);
    const audited = await store.recordApproval(
      [
        {
          runId,
          turnDigest,
          approve: false,
          actor: EXPIRY_ACTOR,
          actorId: null,
          reason: null,
          decisionId,
          kind: "expiry",
          grantedBy: null,
          scope: "gate",
          batchIndex: barrier.batchIndex,
          callId: barrier.id,
          toolName: barrier.name,
          arguments: barrier.arguments,
          argumentsDigest,
          editedArguments: null,
          editedDigest: null,
        },
      ],
      { claimToken, event: expired(true) },
    );
    if (!audited) {
      dependencies.log?.("an expiry could not be audited; it proceeds because it executes nothing", {
        runId,
      });
      await store.appendEvent(runId, claimToken, expired(false));
    }
    return dependencies.createEnvironment(claim.run, claimToken);
  });
  return { settled: driveRun(environment, resumeClaimedRun(claim, { kind: "expire" })) };
}
