/**
 * Builders of the plan problems of
 * docs/planning-rules.md#the-rules-in-order-the-first-that-applies-wins. Each message is addressed to
 * the model (it is quoted in the repair notice): it names the call by position and tool, says what is
 * wrong and, where useful, what would be accepted.
 */
import type { PlanProblem, ResourceClass } from "../types";

/** The part of a call a problem message needs. */
export interface DescribedCall {
  batchIndex: number;
  name: string;
}

/** `call 3 ("write_file")`: position and tool name, the name quoted and shortened to 64 characters. */
export function describeCall(call: DescribedCall): string {
  const name = call.name.length > 64 ? `${call.name.slice(0, 64)}…` : call.name;
  return `call ${call.batchIndex} (${JSON.stringify(name)})`;
}

/** `unknown_tool`: no tool of that name is registered. */
export function createUnknownToolProblem(call: DescribedCall): PlanProblem {
  return {
    batchIndex: call.batchIndex,
    code: "unknown_tool",
    message: `${describeCall(call)}: no tool with this name is registered`,
  };
}

/** `malformed_arguments`: the raw arguments are not JSON, or not a JSON object. */
export function createMalformedArgumentsProblem(call: DescribedCall, reason: string): PlanProblem {
  return {
    batchIndex: call.batchIndex,
    code: "malformed_arguments",
    message: `${describeCall(call)}: arguments ${reason}`,
  };
}

/** `invalid_arguments`: the arguments fail the tool's schema; lists every message. */
export function createInvalidArgumentsProblem(call: DescribedCall, messages: readonly string[]): PlanProblem {
  return {
    batchIndex: call.batchIndex,
    code: "invalid_arguments",
    message: `${describeCall(call)}: invalid arguments: ${messages.join("; ")}`,
  };
}

/** `too_many_calls`: a batch over the cap that is not made only of valid pure reads. */
export function createTooManyCallsProblem(callCount: number, cap: number): PlanProblem {
  return {
    batchIndex: null,
    code: "too_many_calls",
    message:
      `the batch has ${callCount} tool calls but at most ${cap} may run in parallel; ` +
      `a batch of more than ${cap} calls may contain only valid pure-read calls that need no approval`,
  };
}

/** `payload_too_large`: the batch's raw calls exceed the payload limit. */
export function createPayloadTooLargeProblem(payloadBytes: number, maxBytes: number): PlanProblem {
  return {
    batchIndex: null,
    code: "payload_too_large",
    message: `the batch's tool calls take ${payloadBytes} bytes, more than the limit of ${maxBytes} bytes`,
  };
}

/** `terminal_with_siblings`: a terminal call (`reply`, `finish`) that is not alone in its batch. */
export function createTerminalWithSiblingsProblem(call: DescribedCall, callCount: number): PlanProblem {
  return {
    batchIndex: call.batchIndex,
    code: "terminal_with_siblings",
    message: `${describeCall(call)} is terminal and must be the only call of its batch, but the batch has ${callCount} calls`,
  };
}

/** `approval_gated`: a call needing approval inside an oversized batch. */
export function createApprovalGatedProblem(call: DescribedCall, cap: number): PlanProblem {
  return {
    batchIndex: call.batchIndex,
    code: "approval_gated",
    message: `${describeCall(call)} needs approval, which is not allowed in a batch of more than ${cap} calls`,
  };
}

/** `terminal_in_oversized_batch`: a terminal call inside an oversized batch. */
export function createTerminalInOversizedBatchProblem(call: DescribedCall, cap: number): PlanProblem {
  return {
    batchIndex: call.batchIndex,
    code: "terminal_in_oversized_batch",
    message: `${describeCall(call)} is terminal and must be the only call of its batch, not part of a batch of more than ${cap} calls`,
  };
}

/** `not_pure_read`: a call of another class inside an oversized batch. */
export function createNotPureReadProblem(
  call: DescribedCall,
  resourceClass: ResourceClass,
  cap: number,
): PlanProblem {
  return {
    batchIndex: call.batchIndex,
    code: "not_pure_read",
    message:
      `${describeCall(call)} has resource class "${resourceClass}"; ` +
      `only pure_read calls may be part of a batch of more than ${cap} calls`,
  };
}

/** `policy_denied`: a policy rule denied the call; the model gets the rule's message (docs/policies.md#how-a-call-is-decided). */
export function createPolicyDeniedProblem(call: DescribedCall, rule: string, message: string): PlanProblem {
  return {
    batchIndex: call.batchIndex,
    code: "policy_denied",
    message: `${describeCall(call)}: denied by policy rule ${JSON.stringify(rule)}: ${message}`,
  };
}
