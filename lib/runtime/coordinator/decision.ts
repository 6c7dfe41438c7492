/** A decision on a waiting run, as the coordinator takes it and answers it. */
import type { GrantRequest, ToolGrant } from "../grants/tool-grant";
import type { Decider } from "../policy/who-may-decide";
import type { DecisionVia } from "../run/approval-records";
import type { RunStatus } from "../run/run-types";

/** A human decision on the pending turn it names (docs/decisions.md#what-a-decision-can-say). */
export interface Decision {
  approve: boolean;
  turnDigest?: string | null;
  /** Who decides, by name (the audit shows it), and by user id when the host authenticated one. */
  actor: string;
  actorId?: string | null;
  /**
   * The decider as the host authenticated them (their role for this request, e-mail, user id):
   * a policy rule's `approvers` are checked against it (docs/policies.md#who-may-decide). Absent
   * when the host authenticates no one (a scenario's or the bench's decisions): no rule is checked.
   */
  decider?: Decider | null;
  /** How it reached the host when not through the app's own controls (a decision link); the audit keeps it. */
  via?: DecisionVia | null;
  /** A denial's reply to the model: it reads it with the outcome in its next completion. */
  reason?: string | null;
  /**
   * Approvals only: the barrier call's arguments as the approver changed them.
   * Checked like the model's (the tool's schema and preflight); the call runs
   * with them, and the audit keeps both.
   */
  editedArguments?: Record<string, unknown> | null;
  /** Approvals only: `turn` approves every gate of the pending turn, in order; `gate` (default) the barrier. */
  scope?: "gate" | "turn";
  /**
   * Approvals only: later calls of the barrier's tool in this run need no
   * approval ("always allow"); each is audited as an automatic approval
   * pointing to this decision. Never reaches another run.
   */
  alwaysAllow?: boolean;
  /**
   * Approvals only: a scoped grant of the barrier's tool (docs/policies.md#grants): whose later
   * calls it covers (this run, this agent, this user, everyone), under what condition, until when
   * and how many times. Stored once the approval took effect.
   */
  grant?: GrantRequest | null;
}

/**
 * What a decision did: the barrier ran (`executed`), was denied, or the approval was `counted`
 * toward a quorum it did not yet meet, and the run goes on waiting (docs/policies.md#quorum).
 */
export type DecisionOutcome = "executed" | "denied" | "counted";

/** A decision that took effect, and the run's status once it was applied. */
export interface DecisionResult {
  outcome: DecisionOutcome;
  status: RunStatus;
  /** The grant the approval gave, as stored; null when it asked for one that could not be stored. */
  grant?: ToolGrant | null;
}

/** A decision that took effect; `settled` is the run going on, until it next waits or ends. */
export interface StartedDecision {
  outcome: DecisionOutcome;
  /** As in {@link DecisionResult}. */
  grant?: ToolGrant | null;
  settled: Promise<RunStatus>;
}
