/**
 * Evaluates a policy for one call (docs/policies.md#how-a-call-is-decided): the first rule whose
 * condition is true decides; when none matches, the tool's declaration does. A rule that fails to
 * evaluate fails closed: the call is gated and the error is shown with it.
 */
import { type PolicyContext, toCelBindings } from "./policy-context";
import type { CompiledPolicy, PolicyApprovers } from "./policy-document";

/** A policy as a run applies it: compiled, with the version it was published as (null: a candidate). */
export interface ActivePolicy {
  version: number | null;
  policy: CompiledPolicy;
}

/** What a rule decided for a call, as recorded with the call and in its audit. */
export type PolicyDecision =
  | { effect: "allow"; version: number | null; rule: string }
  | {
      effect: "require";
      version: number | null;
      rule: string;
      approvers: PolicyApprovers;
      quorum: number;
      /** Set when the rule failed to evaluate: the call is gated because of it (fail closed). */
      error?: string;
    }
  | { effect: "deny"; version: number | null; rule: string; message: string };

/** Who decides a gate a failing rule closed: any approver, one of them. */
const FAIL_CLOSED_APPROVERS: PolicyApprovers = { role: "approver", people: [], groups: [] };

/** The decision of the first matching rule, or null when no rule matches (the declaration decides). */
export function decideCall(active: ActivePolicy, context: PolicyContext): PolicyDecision | null {
  const bindings = toCelBindings(context);
  const { version } = active;
  for (const rule of active.policy.rules) {
    let matched: unknown = true;
    if (rule.test) {
      try {
        matched = rule.test(bindings);
      } catch (error) {
        return failClosed(version, rule.name, error instanceof Error ? error.message : String(error));
      }
      if (typeof matched !== "boolean") {
        return failClosed(version, rule.name, `the condition gave ${typeof matched}, not a boolean`);
      }
    }
    if (!matched) continue;
    switch (rule.effect) {
      case "allow":
        return { effect: "allow", version, rule: rule.name };
      case "deny":
        return { effect: "deny", version, rule: rule.name, message: rule.message ?? "denied by policy" };
      case "require":
        return {
          effect: "require",
          version,
          rule: rule.name,
          approvers: rule.approvers ?? FAIL_CLOSED_APPROVERS,
          quorum: rule.quorum ?? 1,
        };
    }
  }
  return null;
}

function failClosed(version: number | null, rule: string, message: string): PolicyDecision {
  return {
    effect: "require",
    version,
    rule,
    approvers: FAIL_CLOSED_APPROVERS,
    quorum: 1,
    error: `rule ${JSON.stringify(rule)} failed: ${message.split("\n")[0]}`,
  };
}
