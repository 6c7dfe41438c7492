/**
 * Applies a policy to a preflighted batch (docs/policies.md#how-a-call-is-decided): each call that
 * preflighted cleanly is asked of the policy, and the first matching rule replaces what the tool's
 * declaration said. `allow` ungates it, `require` gates it, `deny` gives it a `policy_denied`
 * problem so the planner settles it without running it.
 */
import { createPolicyDeniedProblem } from "../planner/plan-problems";
import type { PreflightedCall } from "../planner/preflight";
import type { ToolRegistry } from "../tools/tool-registry";
import { type ActivePolicy, decideCall } from "./decide-call";
import type { PolicyContext, PolicyRun } from "./policy-context";

/** The policy a batch is planned under, with the run and the time it is planned at. */
export interface PlanPolicy {
  active: ActivePolicy;
  run: PolicyRun;
  now: Date;
}

/** The context a rule sees for one call of a batch. */
export function buildPolicyContext(
  call: PreflightedCall,
  batch: readonly PreflightedCall[],
  registry: ToolRegistry,
  plan: Pick<PlanPolicy, "run" | "now">,
): PolicyContext {
  const origin = registry.get(call.name)?.origin;
  return {
    call: {
      name: call.name,
      arguments: call.parsedArguments ?? {},
      effect: call.effect,
      resourceClass: call.resourceClass ?? "",
      server: origin?.server ?? "",
      trust: origin?.trust ?? "",
      fingerprint: call.toolFingerprint ?? "",
    },
    run: plan.run,
    now: plan.now,
    batch: { size: batch.length, tools: batch.map((each) => each.name) },
  };
}

/** The batch with the policy's decisions applied; calls that failed preflight are left as they are. */
export function applyPolicy(
  calls: readonly PreflightedCall[],
  registry: ToolRegistry,
  plan: PlanPolicy,
): PreflightedCall[] {
  return calls.map((call) => {
    if (call.problem !== null) return call;
    const decision = decideCall(plan.active, buildPolicyContext(call, calls, registry, plan));
    if (decision === null) return call;
    if (decision.effect === "deny") {
      return {
        ...call,
        isGated: false,
        policy: decision,
        gatedByDeclaration: call.isGated,
        problem: createPolicyDeniedProblem(call, decision.rule, decision.message),
      };
    }
    return {
      ...call,
      isGated: decision.effect === "require",
      policy: decision,
      gatedByDeclaration: call.isGated,
    };
  });
}
