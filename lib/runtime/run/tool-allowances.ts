/**
 * "Always allow this tool for this run": a decision that approves a barrier
 * can also grant its tool to the rest of the run. Later calls of that tool
 * are planned as ungated, and each is audited, in the write that starts it,
 * as an automatic approval pointing to the decision that granted it. A grant
 * belongs to one run, and can be revoked; a revocation applies from the
 * run's next step.
 */
import { z } from "zod";
import { ownRecordSchema } from "../own-record-schema";
import type { PreflightedCall } from "../planner/preflight";
import { preflightCall } from "../planner/preflight";
import type { ToolRegistry } from "../tools/tool-registry";
import { computeCallDigest } from "../turn-digest";
import type { ToolCall } from "../types";
import type { ApprovalRecord } from "./approval-records";

export const toolAllowanceSchema = z.object({
  /** The decision that granted it. */
  decisionId: z.string(),
  /** Who granted it. */
  actor: z.string(),
  actorId: z.string().nullable(),
});
export type ToolAllowance = z.infer<typeof toolAllowanceSchema>;

/** A run's grants, by tool name. */
export type ToolAllowances = Record<string, ToolAllowance>;
export const toolAllowancesSchema = ownRecordSchema(toolAllowanceSchema);

/** A run's stored grants, decoded: anything unreadable grants nothing (fail closed). */
export function decodeToolAllowances(stored: unknown): ToolAllowances {
  const parsed = toolAllowancesSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : {};
}

/** The registry as a run with these grants plans with: a granted tool needs no approval. */
export function withAllowances(registry: ToolRegistry, allowances: ToolAllowances): ToolRegistry {
  if (Object.keys(allowances).length === 0) return registry;
  return {
    ...registry,
    get(name) {
      const tool = registry.get(name);
      return tool && Object.hasOwn(allowances, name) ? { ...tool, approval: "never" } : tool;
    },
  };
}

/**
 * Marks the calls a grant let through: those whose tool is granted and that
 * the tool's own policy would have gated. Only those are audited as
 * automatic approvals.
 */
export function markAllowedCalls(
  calls: readonly ToolCall[],
  preflighted: readonly PreflightedCall[],
  registry: ToolRegistry,
  allowances: ToolAllowances,
): PreflightedCall[] {
  return preflighted.map((call, index) => {
    // Own grants only: a tool named "toString" is not granted by Object.prototype.
    const allowance = Object.hasOwn(allowances, call.name) ? allowances[call.name] : undefined;
    const original = calls[index];
    // A policy rule that matched decides before any grant (docs/policies.md#how-a-call-is-decided).
    if (!allowance || !original || call.problem !== null || call.policy) return call;
    return preflightCall(original, registry).isGated ? { ...call, allowedBy: allowance } : call;
  });
}

/**
 * The audit rows of the calls about to start that a grant or a policy rule let through: one
 * automatic approval each. A rule's row names the policy version and the rule (docs/policies.md#the-audit).
 */
export function automaticApprovals(runId: string, calls: readonly PreflightedCall[]): ApprovalRecord[] {
  return calls.flatMap((call): ApprovalRecord[] => {
    const policy = call.policy;
    if (policy?.effect === "allow" && call.gatedByDeclaration) {
      return [
        {
          ...automaticApproval(runId, call),
          actor:
            policy.version === null
              ? `policy rule ${policy.rule}`
              : `policy v${policy.version}, rule ${policy.rule}`,
          actorId: null,
          grantedBy: null,
          policyVersion: policy.version,
          policyRule: policy.rule,
        },
      ];
    }
    const allowance = call.allowedBy;
    if (!allowance) return [];
    return [
      {
        ...automaticApproval(runId, call),
        actor: allowance.actor,
        actorId: allowance.actorId,
        grantedBy: allowance.decisionId,
      },
    ];
  });
}

/** What every automatic approval of one call says, whoever let it through. */
function automaticApproval(runId: string, call: PreflightedCall) {
  const digest = computeCallDigest(call);
  return {
    runId,
    turnDigest: digest,
    approve: true,
    reason: null,
    decisionId: crypto.randomUUID(),
    kind: "automatic" as const,
    scope: "gate" as const,
    batchIndex: call.batchIndex,
    callId: call.id,
    toolName: call.name,
    arguments: call.arguments,
    argumentsDigest: digest,
    editedArguments: null,
    editedDigest: null,
  };
}
