/**
 * Who may decide a gate a policy rule asks for (docs/policies.md#who-may-decide): the rule's
 * `approvers` name a role, people, or groups; a decider is let through when their role includes
 * the role named, or when they are one of the people named (by e-mail address or user id).
 */
import type { PolicyDecision } from "./decide-call";
import type { PolicyApprovers } from "./policy-document";

/** The person deciding, as the host authenticated them. */
export interface Decider {
  /** Their role for this request (a token limited to less acts with less). */
  role: string;
  email: string;
  userId: string | null;
}

/** The roles that include deciding, from least to most (docs/security.md). */
const DECIDING_ROLES = ["approver", "admin"] as const;

/** True when the rule's `approvers` include the decider. Groups name nobody yet: no one is let in by one. */
export function isNamedApprover(approvers: PolicyApprovers, decider: Decider): boolean {
  if (approvers.role !== null) {
    const needed = DECIDING_ROLES.indexOf(approvers.role);
    const held = DECIDING_ROLES.indexOf(decider.role as (typeof DECIDING_ROLES)[number]);
    if (held >= 0 && held >= needed) return true;
  }
  const email = decider.email.toLowerCase();
  return approvers.people.some(
    (person) => person.toLowerCase() === email || (decider.userId !== null && person === decider.userId),
  );
}

/**
 * True when the decider may decide a call the policy decided this way: a call a rule requires a
 * decision for, by the rule's approvers only; any other gated call, by anyone who may decide at all
 * (their role is the host's to check). The one test a decision and a decision link's recipient share.
 */
export function mayDecideCall(policy: PolicyDecision | undefined, decider: Decider): boolean {
  return policy?.effect !== "require" || isNamedApprover(policy.approvers, decider);
}

/** Says who a rule's `approvers` name, for a refusal's message. */
export function describeApprovers(approvers: PolicyApprovers): string {
  const named = [
    ...(approvers.role ? [approvers.role === "admin" ? "an admin" : "an approver"] : []),
    ...approvers.people,
    ...approvers.groups.map((group) => `a member of the group ${group}`),
  ];
  return named.length <= 1 ? (named[0] ?? "nobody") : `${named.slice(0, -1).join(", ")} or ${named.at(-1)}`;
}
