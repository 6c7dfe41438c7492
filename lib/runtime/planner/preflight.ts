/**
 * Preflight of one tool call (docs/planning-rules.md#preflight): everything the planner needs to know
 * about a call, computed once, without running anything.
 */
import { findDuplicateKey } from "../json-duplicate-keys";
import { findJsonValueProblem } from "../json-limits";
import type { PolicyDecision } from "../policy/decide-call";
import type { ShadowRecord } from "../policy/policy-source";
import type { ApprovalPolicy } from "../tools/tool-definition";
import type { ToolRegistry } from "../tools/tool-registry";
import type { Effect, PlanProblem, ResourceClass, ToolCall } from "../types";
import {
  createInvalidArgumentsProblem,
  createMalformedArgumentsProblem,
  createUnknownToolProblem,
} from "./plan-problems";

/**
 * A call after preflight. Plain JSON data (no functions), so it can be
 * persisted and drawn. The call may be dispatched if and only if `problem` is
 * null. `parsedArguments` is the parsed object whenever the raw arguments are
 * a JSON object, even if the tool is unknown or the schema rejects them (for
 * display); it is null when they are not a JSON object.
 */
export interface PreflightedCall {
  batchIndex: number;
  id: string;
  name: string;
  arguments: string;
  parsedArguments: Record<string, unknown> | null;
  /** The tool's class; null for an unknown tool. */
  resourceClass: ResourceClass | null;
  /** The tool's effect; `NON_IDEMPOTENT_WRITE` for an unknown tool (fail closed). */
  effect: Effect;
  /** Whether the call needs approval; see `preflightCall` for the conservative cases. */
  isGated: boolean;
  /** The first failed check, or null when the call preflights cleanly. */
  problem: PlanProblem | null;
  /** Set when the call needs no approval only because its tool was granted for the run ("always allow"). */
  allowedBy?: { decisionId: string; actor: string; actorId: string | null };
  /**
   * Set when a policy rule decided the call (docs/policies.md#how-a-call-is-decided): `isGated`
   * and `problem` already follow it. Absent when no rule matched and the declaration decided.
   */
  policy?: PolicyDecision;
  /** With `policy`: whether the tool's declaration alone would have gated the call (an allow then is audited). */
  gatedByDeclaration?: boolean;
  /** What the shadow policy would have done with the call (docs/policies.md#publishing-versions-and-shadow), when one was published. */
  shadow?: ShadowRecord;
  /** The fingerprint of its tool's definition when planned, for a tool defined elsewhere (an MCP server's). */
  toolFingerprint?: string;
}

/**
 * Preflights a call against the registry. Checks, in order, the first failure
 * becoming `problem`: the tool is registered (`unknown_tool`); the raw
 * arguments parse as JSON and are an object, not an array, null or scalar
 * (`malformed_arguments`; an empty string is malformed); the object passes
 * the tool's schema (`invalid_arguments`, listing every message).
 *
 * `isGated`: policy "always" → true, "never" → false; a predicate → its answer
 * for valid arguments, and true (conservatively) when the arguments could not
 * be parsed or validated or the predicate throws. An unknown tool is never
 * gated. Pure: never executes the tool.
 */
export function preflightCall(call: ToolCall, registry: ToolRegistry): PreflightedCall {
  const tool = registry.get(call.name);
  const parsing = parseArgumentsObject(call.arguments);
  const parsedArguments = parsing.ok ? parsing.value : null;
  const base = {
    batchIndex: call.batchIndex,
    id: call.id,
    name: call.name,
    arguments: call.arguments,
    parsedArguments,
  };

  if (tool === undefined) {
    return {
      ...base,
      resourceClass: null,
      effect: registry.effectFor(call.name),
      isGated: false,
      problem: createUnknownToolProblem(call),
    };
  }
  let problem: PlanProblem | null = null;
  if (!parsing.ok) {
    problem = createMalformedArgumentsProblem(call, parsing.reason);
  } else {
    const messages = registry.validateArguments(call.name, parsing.value);
    if (messages.length > 0) {
      problem = createInvalidArgumentsProblem(call, messages);
    }
  }
  return {
    ...base,
    resourceClass: tool.resourceClass,
    effect: tool.effect,
    isGated: decideGated(tool.approval, problem === null ? parsedArguments : null),
    problem,
    ...(tool.fingerprint === undefined ? {} : { toolFingerprint: tool.fingerprint }),
  };
}

type ArgumentsParsing = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

function parseArgumentsObject(raw: string): ArgumentsParsing {
  if (raw.trim() === "") {
    return { ok: false, reason: 'are empty; send a JSON object such as "{}"' };
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `are not valid JSON (${reason})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return { ok: false, reason: `must be a JSON object, got ${kind}` };
  }
  // What could never be stored or safely handled is refused like malformed JSON: the model repairs it.
  const problem = findJsonValueProblem(value);
  if (problem) {
    const where = problem.path.length > 0 ? ` at ${problem.path.join(".")}` : "";
    return { ok: false, reason: `are not usable: the value${where} ${problem.message}` };
  }
  // Parsed, the last of a repeated key wins; the approver and the rules must read what the tool will.
  const duplicate = findDuplicateKey(raw);
  if (duplicate) {
    const where = duplicate.path.length > 0 ? ` in the object at ${duplicate.path.join(".")}` : "";
    return {
      ok: false,
      reason: `are ambiguous: the key ${JSON.stringify(duplicate.key)} is written twice${where}; write each key once`,
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function decideGated(approval: ApprovalPolicy, validArguments: Record<string, unknown> | null): boolean {
  if (approval === "always") {
    return true;
  }
  if (approval === "never") {
    return false;
  }
  if (validArguments === null) {
    return true;
  }
  try {
    return approval(structuredClone(validArguments)) === true;
  } catch {
    // A predicate that cannot decide must not let a call through unapproved.
    return true;
  }
}
