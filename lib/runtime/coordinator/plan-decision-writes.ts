import type { PreflightedCall } from "../planner/preflight";
import type { ApprovalRecord } from "../run/approval-records";
import { barrierOf, gatesOf, resumedEvent } from "../run/execute-step";
import type { SuspendedState } from "../run/suspended-state";
import { computeCallDigest } from "../turn-digest";
import type { Decision, DecisionResult } from "./decision";

/**
 * Plans the writes a decision makes on the step it was checked against: its
 * audit rows (one per gate decided), its announcement, and an approval's
 * barrier start. Writes nothing itself: the plan is built before the claim
 * when the claim can record it in one write, and from the claimed state
 * otherwise.
 */
export function planDecisionWrites(
  runId: string,
  decision: Decision,
  edit: PreflightedCall | null,
  state: SuspendedState,
  /** The digest computed of `state.pending.calls`. */
  expected: string,
) {
  const reason = decision.reason ?? null;
  const outcome: DecisionResult["outcome"] = decision.approve ? "executed" : "denied";
  const barrier = barrierOf(state);
  if (!barrier) throw new Error(`the run is not waiting at a barrier of step ${state.stepIndex}`);
  const scope: "gate" | "turn" = decision.approve && decision.scope === "turn" ? "turn" : "gate";
  const gates = scope === "turn" ? gatesOf(state) : [barrier.batchIndex];
  const decisionId = crypto.randomUUID();
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
      decisionId,
      scope,
      gates,
      editedArguments: edit?.arguments ?? null,
      // A grant is stored with the audit row: an unaudited decision grants nothing.
      allowTool: audited && decision.approve && decision.alwaysAllow === true ? barrier.name : null,
    },
  });
  const records = gates.map((batchIndex): ApprovalRecord => {
    const call = state.calls[batchIndex];
    if (!call) throw new Error(`gate ${batchIndex} is not a call of step ${state.stepIndex}`);
    const edited = batchIndex === barrier.batchIndex ? edit : null;
    return {
      runId,
      turnDigest: expected,
      approve: decision.approve,
      actor: decision.actor,
      actorId: decision.actorId ?? null,
      reason,
      decisionId,
      kind: "decision",
      grantedBy: null,
      scope,
      batchIndex,
      callId: call.id,
      toolName: call.name,
      arguments: call.arguments,
      argumentsDigest: computeCallDigest(call),
      editedArguments: edited?.arguments ?? null,
      editedDigest: edited ? computeCallDigest(edited) : null,
      ...(decision.via ? { via: decision.via } : {}),
    };
  });
  const startBarrier = decision.approve
    ? { resumed: resumedEvent(state.stepIndex, { kind: "approve" }), batchIndex: barrier.batchIndex }
    : undefined;
  return { expected, outcome, reason, gates, decisionId, announcement, records, startBarrier };
}
export type DecisionWritePlan = ReturnType<typeof planDecisionWrites>;
