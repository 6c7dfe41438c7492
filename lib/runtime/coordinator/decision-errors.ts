import { RuntimeError } from "../errors";
import { isTerminalStatus } from "../run/is-terminal-status";
import type { PendingTurn } from "../run/run-types";

/**
 * A decision or cancellation that did not take effect. `pending` is the run's
 * current pending turn when it is (still) waiting, so a client can re-render
 * and decide again (docs/decisions.md#what-happens-to-a-decision-in-order).
 */
export class DecisionRefusedError extends RuntimeError {
  static override readonly brand: string = "DecisionRefusedError";
  readonly runId: string;
  readonly pending: PendingTurn | null;
  constructor(code: string, runId: string, message: string, pending: PendingTurn | null) {
    super(code, message);
    this.runId = runId;
    this.pending = pending;
  }
}

/** The decision named a turn other than the pending one, or none (gate 1). */
export class StaleApprovalTurnError extends DecisionRefusedError {
  static override readonly brand: string = "StaleApprovalTurnError";
  declare readonly code: "stale_turn";
  readonly expected: string;
  readonly received: string | null;
  constructor(runId: string, pending: PendingTurn, received: string | null) {
    super(
      "stale_turn",
      runId,
      received
        ? `The turn you decided on (${received.slice(0, 12)}…) is no longer the pending turn of run ${runId}.`
        : `A decision must name the pending turn's turnDigest; none was given for run ${runId}.`,
      pending,
    );
    this.expected = pending.turnDigest;
    this.received = received;
  }
}

/**
 * A decision that cannot be applied as sent: it names what is wrong (one problem, or several of
 * the one field, such as each refusal of edited arguments); nothing was claimed.
 */
export class InvalidDecisionError extends DecisionRefusedError {
  static override readonly brand: string = "InvalidDecisionError";
  declare readonly code: "invalid_request";
  readonly field: string;
  /** Each problem under the field it is about, for the 400's `issues`. */
  readonly issues: Array<{ path: string; message: string }>;
  constructor(
    runId: string,
    field: string,
    message: string | readonly string[],
    pending: PendingTurn | null,
  ) {
    const messages = typeof message === "string" ? [message] : message;
    super("invalid_request", runId, `${field}: ${messages.join("; ")}`, pending);
    this.field = field;
    this.issues = messages.map((each) => ({ path: field, message: each }));
  }
}

/** The run is not waiting for a decision (claim lost, already decided, finished). */
export class NotWaitingError extends DecisionRefusedError {
  static override readonly brand: string = "NotWaitingError";
  declare readonly code: "not_waiting";
  readonly status: string;
  constructor(runId: string, status: string, pending: PendingTurn | null = null) {
    super(
      "not_waiting",
      runId,
      // An ended run is said to have ended: "it is COMPLETED" reads as if it might still be decided later.
      isTerminalStatus(status)
        ? `Run ${runId} has ended (${status}): it is not waiting for a decision.`
        : `Run ${runId} is not waiting for a decision (it is ${status}).`,
      pending,
    );
    this.status = status;
  }
}

/**
 * A decision that found the run waiting and lost it to a cancel: the cancel took the pending turn
 * first, and nothing was decided. `scope` is what the cancel cancels, once its worker has said so
 * (null before); `status` is the run's status read after the claim was lost: the final one once the
 * run has ended (`CANCELLED`), RUNNING while the cancel is still ending it or the run goes on to its
 * next turn.
 */
export class CancelledFirstError extends DecisionRefusedError {
  static override readonly brand: string = "CancelledFirstError";
  declare readonly code: "not_waiting";
  readonly status: string;
  readonly scope: "turn" | "run" | null;
  constructor(runId: string, status: string, scope: "turn" | "run" | null, hasEnded: boolean) {
    const what =
      scope === "turn" ? `The pending turn of run ${runId} was cancelled` : `Run ${runId} was cancelled`;
    super(
      "not_waiting",
      runId,
      hasEnded
        ? `${what} before this decision could take effect, and the run has ended (${status}); nothing was decided.`
        : scope === null
          ? `A cancel took the pending turn of run ${runId} before this decision could take effect; nothing was decided.`
          : `${what} before this decision could take effect; nothing was decided, and the run ${scope === "run" ? "is ending" : "goes on with its next turn"}.`,
      null,
    );
    this.status = status;
    this.scope = scope;
  }
}

/** A cancel of a run that has already ended: there is nothing left to cancel. */
export class RunEndedError extends DecisionRefusedError {
  static override readonly brand: string = "RunEndedError";
  declare readonly code: "not_waiting";
  readonly status: string;
  constructor(runId: string, status: string) {
    super(
      "not_waiting",
      runId,
      `Run ${runId} has already ended (${status}); there is nothing to cancel.`,
      null,
    );
    this.status = status;
  }
}

/** The wait for this turn expired: nobody decided in time, and now nobody can. */
export class ApprovalExpiredError extends DecisionRefusedError {
  static override readonly brand: string = "ApprovalExpiredError";
  declare readonly code: "not_waiting";
  readonly expiresAt: string;
  constructor(runId: string, expiresAt: string, pending: PendingTurn | null) {
    super(
      "not_waiting",
      runId,
      `The wait for a decision on this turn of run ${runId} expired at ${expiresAt}; it can no longer be decided.`,
      pending,
    );
    this.expiresAt = expiresAt;
  }
}

/** An approval whose audit record could not be stored, on a turn that declares a write (gate 2). */
export class NotAuditableError extends DecisionRefusedError {
  static override readonly brand: string = "NotAuditableError";
  declare readonly code: "not_auditable";
  constructor(runId: string, pending: PendingTurn) {
    super(
      "not_auditable",
      runId,
      `The approval could not be recorded in the audit log, and the turn declares a write, so nothing was executed. Run ${runId} is waiting again; retry.`,
      pending,
    );
  }
}

/** Separation of duties: the person who started the run may not approve its gated calls. */
export class SelfApprovalError extends DecisionRefusedError {
  static override readonly brand: string = "SelfApprovalError";
  declare readonly code: "forbidden";
  constructor(runId: string, pending: PendingTurn | null) {
    super(
      "forbidden",
      runId,
      `You started run ${runId}, and its policy requires someone else to approve it. You can still deny it or cancel it.`,
      pending,
    );
  }
}

/**
 * A policy rule names who may decide the gate (docs/policies.md#who-may-decide), and the decider is
 * not among them: refused before anything is claimed, approvals and denials alike.
 */
export class NotRuleApproverError extends DecisionRefusedError {
  static override readonly brand: string = "NotRuleApproverError";
  declare readonly code: "not_rule_approver";
  /** The rule that names who may decide, and the policy version it belongs to. */
  readonly rule: string;
  readonly policyVersion: number | null;
  constructor(
    runId: string,
    rule: { name: string; version: number | null; approvers: string },
    pending: PendingTurn | null,
  ) {
    super(
      "not_rule_approver",
      runId,
      `Policy rule "${rule.name}"${rule.version === null ? "" : ` (version ${rule.version})`} lets only ${rule.approvers} decide this call of run ${runId}.`,
      pending,
    );
    this.rule = rule.name;
    this.policyVersion = rule.version;
  }
}

/**
 * Quorum (docs/policies.md#quorum): this person's approval of this very turn is already counted;
 * one person approving twice never counts twice.
 */
export class AlreadyApprovedError extends DecisionRefusedError {
  static override readonly brand: string = "AlreadyApprovedError";
  declare readonly code: "already_approved";
  constructor(runId: string, pending: PendingTurn) {
    const { quorum = 1, approvals = [] } = pending;
    super(
      "already_approved",
      runId,
      `You have already approved this turn of run ${runId}; it needs ${quorum} different approvers and has ${approvals.length}.`,
      pending,
    );
  }
}

export class RunNotFoundError extends DecisionRefusedError {
  static override readonly brand: string = "RunNotFoundError";
  declare readonly code: "not_found";
  constructor(runId: string) {
    super("not_found", runId, `No run ${runId}.`, null);
  }
}
