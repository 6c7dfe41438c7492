import type { PreflightedCall } from "../planner/preflight";
import { computeCallDigest } from "../turn-digest";
import type { RunEnvironment } from "./run-environment";
import type { StepProgress } from "./suspended-state";

/**
 * Records in the audit that an approval no longer holds: the approved call's
 * tool changed its definition before the call was sent (it was not sent). A
 * row of kind `voided` names the approval it voids; `approval_voided`
 * announces it in the same write. An audit that cannot store it changes
 * nothing more: nothing was sent, and the event still says why.
 */
export async function voidApproval(
  environment: RunEnvironment,
  progress: StepProgress,
  barrier: PreflightedCall,
  why: string,
): Promise<void> {
  const { runId, store, claimToken } = environment;
  const approval = (await store.listApprovals(runId))
    .filter((row) => row.callId === barrier.id && row.approve && row.kind !== "voided")
    .at(-1);
  const decisionId = crypto.randomUUID();
  const event = (audited: boolean) => ({
    type: "approval_voided" as const,
    payload: {
      stepIndex: progress.stepIndex,
      batchIndex: barrier.batchIndex,
      toolName: barrier.name,
      decisionId,
      voidedDecision: approval?.decisionId ?? null,
      reason: why,
      audited,
    },
  });
  const audited = await store.recordApproval(
    [
      {
        runId,
        turnDigest: approval?.turnDigest ?? computeCallDigest(barrier),
        approve: false,
        actor: "tool-playground",
        actorId: null,
        reason: why,
        decisionId,
        kind: "voided",
        grantedBy: approval?.decisionId ?? null,
        scope: "gate",
        batchIndex: barrier.batchIndex,
        callId: barrier.id,
        toolName: barrier.name,
        arguments: barrier.arguments,
        argumentsDigest: computeCallDigest(barrier),
        editedArguments: null,
        editedDigest: null,
      },
    ],
    { claimToken, event: event(true) },
  );
  if (!audited) await store.appendEvent(runId, claimToken, event(false));
}
