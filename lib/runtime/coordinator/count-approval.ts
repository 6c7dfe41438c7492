/**
 * Quorum (docs/policies.md#quorum): a barrier whose policy rule asks for M approvers runs once M
 * distinct people approved the same turn digest. Every approval before the M-th is counted here,
 * without a claim: its audit row, the state with the approval added and its announcement go in
 * one write, fenced on the run being exactly as it was read, so two approvals counted at once
 * never both count against the same reading. The M-th takes the run through the usual claim.
 */
import type { PreflightedCall } from "../planner/preflight";
import type { ApprovalRecord } from "../run/approval-records";
import { barrierOf, gatesOf, quorumOf } from "../run/execute-step";
import type { RunRecord } from "../run/run-records";
import type { QuorumApproval } from "../run/run-types";
import type { SuspendedState } from "../run/suspended-state";
import { computeCallDigest, computeTurnDigest } from "../turn-digest";
import type { CoordinatorDependencies } from "./coordinator-dependencies";
import type { Decision } from "./decision";
import { AlreadyApprovedError, InvalidDecisionError } from "./decision-errors";

/** True when two approvals are one person's: by user id when both have one, else by name. */
function isSamePerson(approval: QuorumApproval, decision: Decision): boolean {
  const actorId = decision.actorId ?? null;
  if (approval.actorId !== null && actorId !== null) return approval.actorId === actorId;
  return approval.actor === decision.actor;
}

/**
 * Refusals that only a quorum brings, checked before anything is claimed: the same person
 * approving the same turn twice (`already_approved`); a whole-turn approval or a grant, which
 * would let one person approve what needs several (`invalid_request`).
 */
export function refuseQuorumMisuse(runId: string, state: SuspendedState, decision: Decision): void {
  if (!decision.approve) return;
  const { pending } = state;
  const needsSeveral = (batchIndex: number) => {
    const policy = state.calls[batchIndex]?.policy;
    return policy?.effect === "require" && policy.quorum > 1;
  };
  if (decision.scope === "turn" && gatesOf(state).some(needsSeveral)) {
    throw new InvalidDecisionError(
      runId,
      "scope",
      "cannot approve the whole turn: a gate of it needs more than one approver, so each is approved on its own",
      pending,
    );
  }
  if (quorumOf(state) <= 1) return;
  if (decision.alwaysAllow === true) {
    throw new InvalidDecisionError(
      runId,
      "alwaysAllow",
      "cannot be given for a call that needs more than one approver",
      pending,
    );
  }
  if ((pending.approvals ?? []).some((approval) => isSamePerson(approval, decision))) {
    throw new AlreadyApprovedError(runId, pending);
  }
}

/**
 * True when this approval is counted rather than taken: the barrier needs more approvers than
 * have approved with this one, or the approval edits the call (an edit is a new turn, whose count
 * starts again with the editor).
 */
export function isCountedOnly(
  state: SuspendedState,
  decision: Decision,
  edit: PreflightedCall | null,
): boolean {
  const quorum = quorumOf(state);
  if (!decision.approve || quorum <= 1) return false;
  return edit !== null || (state.pending.approvals ?? []).length + 1 < quorum;
}

/**
 * Counts one approval (see the module comment). False when nothing was written: the run changed
 * since it was read, is due, or the audit could not store the row.
 */
export async function countApproval(
  waiting: RunRecord,
  state: SuspendedState,
  /** The digest computed of `state.pending.calls`, the turn the person approved. */
  turnDigest: string,
  decision: Decision,
  edit: PreflightedCall | null,
  dependencies: CoordinatorDependencies,
): Promise<boolean> {
  const barrier = barrierOf(state);
  if (!barrier) throw new Error(`run ${waiting.id} is not waiting at a barrier of step ${state.stepIndex}`);
  const quorum = quorumOf(state);
  const decisionId = crypto.randomUUID();
  const approval: QuorumApproval = { actor: decision.actor, actorId: decision.actorId ?? null, decisionId };
  const next = edit ? applyEdit(state, edit, approval) : addApproval(state, approval);
  const record: ApprovalRecord = {
    runId: waiting.id,
    turnDigest,
    approve: true,
    actor: decision.actor,
    actorId: decision.actorId ?? null,
    reason: decision.reason ?? null,
    decisionId,
    kind: "partial",
    grantedBy: null,
    scope: "gate",
    batchIndex: barrier.batchIndex,
    callId: barrier.id,
    toolName: barrier.name,
    arguments: barrier.arguments,
    argumentsDigest: computeCallDigest(barrier),
    editedArguments: edit?.arguments ?? null,
    editedDigest: edit ? computeCallDigest(edit) : null,
    ...(decision.via ? { via: decision.via } : {}),
  };
  return dependencies.store.recordPartialApproval(waiting.id, waiting.version, {
    records: [record],
    event: {
      type: "approval_counted",
      payload: {
        stepIndex: state.stepIndex,
        turnDigest,
        countedFor: next.pending.turnDigest,
        actor: decision.actor,
        actorId: decision.actorId ?? null,
        reason: decision.reason ?? null,
        decisionId,
        editedArguments: edit?.arguments ?? null,
        approvals: next.pending.approvals ?? [],
        quorum,
      },
    },
    state: next,
    ...(edit
      ? { awaiting: { type: "awaiting_approval", payload: { stepIndex: next.stepIndex, ...next.pending } } }
      : {}),
  });
}

function addApproval(state: SuspendedState, approval: QuorumApproval): SuspendedState {
  return {
    ...state,
    pending: { ...state.pending, approvals: [...(state.pending.approvals ?? []), approval] },
  };
}

/**
 * The step with the barrier's arguments as the editor changed them, and the new turn they make:
 * its own digest, and a count that starts with the editor. The original arguments are kept
 * (the first ones, across several edits) so the model is told the call was changed; the rule
 * that gated the call stays with it.
 */
function applyEdit(state: SuspendedState, edit: PreflightedCall, approval: QuorumApproval): SuspendedState {
  const original = state.calls[edit.batchIndex];
  const calls = state.pending.calls.map((call) =>
    call.batchIndex === edit.batchIndex ? { ...call, arguments: edit.arguments } : call,
  );
  return {
    ...state,
    // The rule that gated the call goes on deciding who may approve it and how many must.
    calls: state.calls.map((call) =>
      call.batchIndex === edit.batchIndex
        ? {
            ...edit,
            isGated: call.isGated,
            ...(call.policy ? { policy: call.policy } : {}),
            ...(call.gatedByDeclaration !== undefined ? { gatedByDeclaration: call.gatedByDeclaration } : {}),
          }
        : call,
    ),
    edits: {
      ...state.edits,
      [edit.batchIndex]: state.edits?.[edit.batchIndex] ?? original?.arguments ?? edit.arguments,
    },
    pending: { ...state.pending, calls, turnDigest: computeTurnDigest(calls), approvals: [approval] },
  };
}
