/**
 * Applies the live grants to a planned batch (docs/policies.md#grants): a call its tool's
 * declaration gated, that no policy rule decided, is let through by the oldest live grant covering
 * it. A use is taken, atomically, only for a batch that will execute; a grant whose last use
 * another instance took at the same moment lets nothing through, and the call is gated again.
 */

import { type BatchPlanning, decidePlan } from "../planner/plan-batch";
import type { PreflightedCall } from "../planner/preflight";
import { buildPolicyContext } from "../policy/apply-policy";
import type { PolicyRun } from "../policy/policy-context";
import type { ToolRegistry } from "../tools/tool-registry";
import type { Limits, ToolCall } from "../types";
import { compileGrantCondition } from "./grant-condition";
import type { GrantStore } from "./grant-store";
import { describeGrant, type GrantSubject, type ToolGrant } from "./tool-grant";

/** What applying grants to one batch needs. */
export interface GrantPlanning {
  store: GrantStore;
  subject: GrantSubject;
  /** The run as a condition sees it (the same as a policy rule). */
  run: PolicyRun;
  now: Date;
}

/**
 * Whether `grant` covers `call` at `now`: same tool, its scope's subject is the run's, the same
 * definition for a tool defined elsewhere, not revoked or expired, uses left, and its condition
 * (if any) true for the call.
 */
export function grantCovers(
  grant: ToolGrant,
  call: PreflightedCall,
  batch: readonly PreflightedCall[],
  registry: ToolRegistry,
  planning: Pick<GrantPlanning, "subject" | "run" | "now">,
): boolean {
  if (grant.toolName !== call.name || grant.revokedAt !== null) return false;
  if (grant.expiresAt !== null && Date.parse(grant.expiresAt) <= planning.now.getTime()) return false;
  if (grant.maxUses !== null && grant.uses >= grant.maxUses) return false;
  // An MCP tool is bound to its definition: a grant given for another one covers nothing.
  if ((grant.toolFingerprint ?? null) !== (call.toolFingerprint ?? null)) return false;
  const { subject } = planning;
  switch (grant.scope) {
    case "run":
      if (grant.runId !== subject.runId) return false;
      break;
    case "agent":
      // An outside agent's run always has an owner: a grant kept by its agent's name alone covers none.
      if (grant.agent !== subject.agent || grant.agentOwnerId !== (subject.agentOwner?.id ?? null))
        return false;
      break;
    case "user":
      if (!subject.starter || grant.starterId !== subject.starter) return false;
      break;
    case "everyone":
      break;
  }
  if (grant.condition === null) return true;
  const compiled = compileGrantCondition(grant.condition);
  if (!compiled.ok) return false;
  return compiled.matches(buildPolicyContext(call, batch, registry, planning));
}

/** The batch as planned once the live grants waived the gates they cover; uses taken for what will run. */
export async function applyGrants(
  calls: readonly ToolCall[],
  planned: BatchPlanning,
  registry: ToolRegistry,
  limits: Pick<Limits, "maxParallelToolCalls" | "maxBatchPayloadBytes">,
  planning: GrantPlanning,
): Promise<BatchPlanning> {
  const waivable = planned.calls.filter(
    (call) => call.isGated && call.problem === null && !call.policy && !call.allowedBy,
  );
  if (waivable.length === 0) return planned;
  const live = await planning.store.listLive({
    now: planning.now,
    toolNames: [...new Set(waivable.map((call) => call.name))],
  });
  const chosen = new Map<number, ToolGrant>();
  for (const call of waivable) {
    const grant = live.find((each) => grantCovers(each, call, planned.calls, registry, planning));
    if (grant) chosen.set(call.batchIndex, grant);
  }
  if (chosen.size === 0) return planned;
  const relax = (granted: ReadonlyMap<number, ToolGrant>) =>
    planned.calls.map((call): PreflightedCall => {
      const grant = granted.get(call.batchIndex);
      if (!grant) return call;
      return {
        ...call,
        isGated: false,
        // The grant's id is what its audit rows name (`grantedBy`).
        allowedBy: { decisionId: grant.id, actor: describeGrant(grant), actorId: grant.createdById },
      };
    });
  const relaxed = relax(chosen);
  const plan = decidePlan(calls, relaxed, limits);
  // A repair runs nothing: no use is spent on it.
  if (plan.kind !== "execute") return planned;
  const taken = new Map<number, ToolGrant>();
  for (const [batchIndex, grant] of chosen) {
    if (await planning.store.takeUse(grant.id, planning.now)) taken.set(batchIndex, grant);
  }
  if (taken.size === chosen.size) return { plan, calls: relaxed };
  const calledAgain = relax(taken);
  return { plan: decidePlan(calls, calledAgain, limits), calls: calledAgain };
}
