/**
 * The batch planner of docs/planning-rules.md: a pure function from a model's batch to a
 * Plan of waves and barriers, or to a repair listing every problem found.
 */
import { InvalidPlanInputError } from "../errors";
import { applyPolicy, type PlanPolicy } from "../policy/apply-policy";
import type { ToolRegistry } from "../tools/tool-registry";
import type { Limits, Plan, PlanProblem, PlanSegment, ToolCall } from "../types";
import { measureBatchPayloadBytes } from "./measure-batch-payload";
import { planPrefixWaves } from "./plan-prefix-waves";
import {
  createApprovalGatedProblem,
  createNotPureReadProblem,
  createPayloadTooLargeProblem,
  createTerminalInOversizedBatchProblem,
  createTerminalWithSiblingsProblem,
  createTooManyCallsProblem,
} from "./plan-problems";
import { type PreflightedCall, preflightCall } from "./preflight";

/** The plan of a batch together with the preflight of each call, in batch order. */
export interface BatchPlanning {
  plan: Plan;
  calls: PreflightedCall[];
}

/**
 * Plans a batch. Pure: no I/O, never executes a tool, same input → same plan.
 * Every call is preflighted first; then the first matching rule decides:
 *
 * 1. More calls than `maxParallelToolCalls` (the cap): if every call preflights
 *    cleanly, is `pure_read` and is not gated → execute in waves of at most
 *    the cap, in batch order. Otherwise repair with `too_many_calls`
 *    (and `payload_too_large` if that limit is exceeded too), then for each
 *    offending call its preflight problem, `approval_gated` if gated, and
 *    `terminal_in_oversized_batch` or `not_pure_read` for its class (a call
 *    may get several). Rule 1a wins even over the payload limit.
 * 2. Raw payload (`measureBatchPayloadBytes`) over `maxBatchPayloadBytes` →
 *    repair with `payload_too_large`.
 * 3. A terminal-class call with any sibling → repair with one
 *    `terminal_with_siblings` per terminal call.
 * 4. At least one gated call → repair unless every call preflights cleanly;
 *    otherwise segments in batch order: prefix waves, barrier, prefix waves,
 *    barrier, … (a prefix may be empty).
 * 5. A terminal call alone → one wave with it; if it fails preflight, repair
 *    with its problem (a terminal call is never answered with an error result).
 * 6. Otherwise one prefix of the calls that preflight cleanly; each failed call
 *    is left out of every segment and its problem listed in `plan.problems`.
 *
 * Repairs in rules 2 and 3 also list every call's preflight problem, so one
 * repaired response can fix everything. Inside a prefix, waves are class-aware
 * (`planPrefixWaves`). An empty batch is an execute plan with no segments.
 * A repair plan never has segments.
 *
 * With a `policy` (docs/policies.md#how-a-call-is-decided), each cleanly preflighted call is
 * decided by its first matching rule before the rules above apply: `allow` ungates it (so an
 * allowed write is no barrier), `require` gates it, and `deny` gives it a `policy_denied`
 * problem. A denied call never makes rule 4 repair: it is left out of every segment and listed
 * in `plan.problems`, so it is settled with the rule's message while its siblings run.
 *
 * Throws `InvalidPlanInputError` when a limit is not a positive integer or the
 * calls' `batchIndex` values are not distinct non-negative integers. Segments
 * name calls by `batchIndex`; their order is execution order.
 */
export function planBatch(
  calls: readonly ToolCall[],
  registry: ToolRegistry,
  limits: Pick<Limits, "maxParallelToolCalls" | "maxBatchPayloadBytes">,
  policy?: PlanPolicy,
): BatchPlanning {
  assertValidInput(calls, limits);
  const declared = calls.map((call) => preflightCall(call, registry));
  const preflighted = policy ? applyPolicy(declared, registry, policy) : declared;
  return { plan: decidePlan(calls, preflighted, limits), calls: preflighted };
}

/**
 * Rules 1 to 6 of {@link planBatch} over calls already preflighted (and decided by a policy):
 * what a batch is planned as once something other than the declaration changed a call's gating
 * (a grant, docs/policies.md#grants). Pure.
 */
export function decidePlan(
  calls: readonly ToolCall[],
  preflighted: readonly PreflightedCall[],
  limits: Pick<Limits, "maxParallelToolCalls" | "maxBatchPayloadBytes">,
): Plan {
  const cap = limits.maxParallelToolCalls;
  const callCount = preflighted.length;
  const payloadBytes = measureBatchPayloadBytes(calls);
  const payloadProblems =
    payloadBytes > limits.maxBatchPayloadBytes
      ? [createPayloadTooLargeProblem(payloadBytes, limits.maxBatchPayloadBytes)]
      : [];

  if (callCount > cap) {
    if (preflighted.every(isWaveableRead)) {
      return createExecutePlan(planPrefixWaves(preflighted, cap), []);
    }
    return createRepairPlan([
      createTooManyCallsProblem(callCount, cap),
      ...payloadProblems,
      ...preflighted.flatMap((call) => listOversizedBatchProblems(call, cap)),
    ]);
  }

  const callProblems = preflighted.flatMap((call) => (call.problem === null ? [] : [call.problem]));
  const terminalCalls = preflighted.filter((call) => call.resourceClass === "terminal");
  const terminalProblems =
    callCount > 1 ? terminalCalls.map((call) => createTerminalWithSiblingsProblem(call, callCount)) : [];
  if (payloadProblems.length > 0) {
    return createRepairPlan([...payloadProblems, ...terminalProblems, ...callProblems]);
  }
  if (terminalProblems.length > 0) {
    return createRepairPlan([...terminalProblems, ...callProblems]);
  }

  if (preflighted.some((call) => call.isGated)) {
    // A denial is the policy's answer, not a mistake to repair: the denied call is settled, its siblings run.
    const denials = callProblems.filter(isDenial);
    if (denials.length < callProblems.length) {
      return createRepairPlan(callProblems);
    }
    const runnable = preflighted.filter((call) => call.problem === null);
    return createExecutePlan(planGatedSegments(runnable, cap), denials);
  }

  const [terminalCall] = terminalCalls;
  if (terminalCall !== undefined) {
    // Rule 3 already refused siblings, so the terminal call is alone.
    if (terminalCall.problem !== null) {
      return createRepairPlan([terminalCall.problem]);
    }
    return createExecutePlan([{ kind: "wave", batchIndexes: [terminalCall.batchIndex] }], []);
  }

  const validCalls = preflighted.filter((call) => call.problem === null);
  return createExecutePlan(planPrefixWaves(validCalls, cap), callProblems);
}

function isDenial(problem: PlanProblem): boolean {
  return problem.code === "policy_denied";
}

function isWaveableRead(call: PreflightedCall): boolean {
  return call.problem === null && call.resourceClass === "pure_read" && !call.isGated;
}

function listOversizedBatchProblems(call: PreflightedCall, cap: number): PlanProblem[] {
  const problems: PlanProblem[] = call.problem === null ? [] : [call.problem];
  if (call.resourceClass === null) {
    return problems;
  }
  if (call.isGated) {
    problems.push(createApprovalGatedProblem(call, cap));
  }
  if (call.resourceClass === "terminal") {
    problems.push(createTerminalInOversizedBatchProblem(call, cap));
  } else if (call.resourceClass !== "pure_read") {
    problems.push(createNotPureReadProblem(call, call.resourceClass, cap));
  }
  return problems;
}

/** Prefix waves and barriers in batch order; every call here preflighted cleanly. */
function planGatedSegments(preflighted: readonly PreflightedCall[], cap: number): PlanSegment[] {
  const segments: PlanSegment[] = [];
  let prefix: PreflightedCall[] = [];
  for (const call of preflighted) {
    if (call.isGated) {
      segments.push(...planPrefixWaves(prefix, cap), { kind: "barrier", batchIndex: call.batchIndex });
      prefix = [];
    } else {
      prefix.push(call);
    }
  }
  segments.push(...planPrefixWaves(prefix, cap));
  return segments;
}

function createExecutePlan(segments: PlanSegment[], problems: PlanProblem[]): Plan {
  return { kind: "execute", segments, problems };
}

function createRepairPlan(problems: PlanProblem[]): Plan {
  return { kind: "repair", segments: [], problems };
}

function assertValidInput(
  calls: readonly ToolCall[],
  limits: Pick<Limits, "maxParallelToolCalls" | "maxBatchPayloadBytes">,
): void {
  for (const [field, value] of Object.entries({
    maxParallelToolCalls: limits.maxParallelToolCalls,
    maxBatchPayloadBytes: limits.maxBatchPayloadBytes,
  })) {
    if (!Number.isInteger(value) || value < 1) {
      throw new InvalidPlanInputError(`${field} must be a positive integer, got ${String(value)}`);
    }
  }
  const seen = new Set<number>();
  for (const call of calls) {
    if (!Number.isInteger(call.batchIndex) || call.batchIndex < 0 || seen.has(call.batchIndex)) {
      throw new InvalidPlanInputError(
        `batchIndex values must be distinct non-negative integers, got ${call.batchIndex}`,
      );
    }
    seen.add(call.batchIndex);
  }
}
