/** The approvals audit's rows, as the run loop writes them and as they are read back. */

/**
 * One row of the append-only audit (docs/decisions.md#what-happens-to-a-decision-in-order, step 6): a
 * decision on one gate. A decision that approves every gate of a turn writes a row per gate, sharing
 * its `decisionId`.
 */
export interface ApprovalRecord {
  runId: string;
  /** The digest of the whole pending turn the decision was bound to. */
  turnDigest: string;
  approve: boolean;
  /** Who decided, by name, and by user id when the host knows one (null in headless runs). */
  actor: string;
  actorId: string | null;
  /** A denial's reply to the model (shown to it in the next completion). */
  reason: string | null;
  /** Shared by every row one decision wrote. */
  decisionId: string;
  /**
   * A person's (or a scenario's) `decision`; an `expiry` of the wait; an
   * `automatic` approval under a grant; an approval `voided` because its
   * tool's definition changed before the call was sent; a `partial` approval,
   * one person's toward a quorum that it did not yet meet (docs/policies.md#quorum).
   */
  kind: (typeof APPROVAL_KINDS)[number];
  /** For an automatic approval: the decision that granted it; for a voided one: the approval it voids. */
  grantedBy: string | null;
  /** `gate`: the barrier alone; `turn`: every gate of the pending turn, in order. */
  scope: "gate" | "turn";
  /** The gate this row decides: its batchIndex, call id and tool. */
  batchIndex: number;
  callId: string;
  toolName: string;
  /** The gate's arguments as they were shown, and the digest of the call with them. */
  arguments: string;
  argumentsDigest: string;
  /** The arguments the approver changed them to, and the digest of the call with those; null when unchanged. */
  editedArguments: string | null;
  editedDigest: string | null;
  /** For an automatic approval a policy rule gave: the policy's version and the rule (docs/policies.md#the-audit). */
  policyVersion?: number | null;
  policyRule?: string | null;
  /** How a person's decision reached the host, when not through the app's own controls. */
  via?: DecisionVia | null;
}

/**
 * A decision that came through a decision link (docs/notifications.md#decision-links): `link` used
 * by its signed-in recipient, `link_alone` by the link with nobody signed in; `channel` sent it.
 */
export interface DecisionVia {
  kind: (typeof DECISION_VIA_KINDS)[number];
  channel: string;
}

export const DECISION_VIA_KINDS = ["link", "link_alone"] as const;

/** A stored row's `via`, checked: an unknown kind is a damaged row, never guessed at. */
export function decodeDecisionVia(kind: string | null, channel: string | null): DecisionVia | null {
  if (kind === null) return null;
  const known = DECISION_VIA_KINDS.find((candidate) => candidate === kind);
  if (!known || channel === null)
    throw new Error(`an approvals row has an unknown via ${JSON.stringify(kind)}`);
  return { kind: known, channel };
}

export const APPROVAL_KINDS = ["decision", "expiry", "automatic", "voided", "partial"] as const;

/** A stored audit row's kind, checked: an unknown one is a damaged row, never guessed at. */
export function decodeApprovalKind(stored: string): ApprovalRecord["kind"] {
  const kind = APPROVAL_KINDS.find((known) => known === stored);
  if (!kind) throw new Error(`an approvals row has an unknown kind ${JSON.stringify(stored)}`);
  return kind;
}

/** What rows written before decisions named their gate do not have (null there). */
type NamedGate = "decisionId" | "batchIndex" | "callId" | "toolName" | "arguments" | "argumentsDigest";

/** An audited decision as stored, with the time it was recorded (ISO). */
export interface StoredApproval extends Omit<ApprovalRecord, "runId" | NamedGate> {
  decisionId: string | null;
  batchIndex: number | null;
  callId: string | null;
  toolName: string | null;
  arguments: string | null;
  argumentsDigest: string | null;
  decidedAt: string;
}
