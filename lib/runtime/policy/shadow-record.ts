/** Live and shadow in the same terms (docs/policies.md#publishing-versions-and-shadow): what a planned call came to. */
import type { PreflightedCall } from "../planner/preflight";
import type { PolicyOutcome, ShadowRecord } from "./policy-source";

/** A planned call's outcome: denied by a rule, gated, or let through. */
export function outcomeOf(call: Pick<PreflightedCall, "isGated" | "policy">): PolicyOutcome {
  if (call.policy?.effect === "deny") return "deny";
  return call.isGated ? "require" : "allow";
}

/** The shadow record of a call as the shadow policy planned it. */
export function toShadowRecord(version: number, shadowCall: PreflightedCall): ShadowRecord {
  const policy = shadowCall.policy;
  return {
    version,
    outcome: outcomeOf(shadowCall),
    rule: policy?.rule ?? null,
    ...(policy?.effect === "require" && policy.error ? { error: policy.error } : {}),
  };
}
