/**
 * Vocabulary of the runtime (docs/planning-rules.md#words). Plain data types only: everything here
 * serialises to JSON unchanged, so plans and pending turns can be persisted,
 * streamed and drawn by the UI.
 */

/**
 * Resource class of a tool; decides how calls may share a wave
 * (docs/planning-rules.md#inside-a-prefix-classes-decide-what-runs-together).
 */
export const RESOURCE_CLASSES = [
  "pure_read",
  "vision",
  "memory",
  "tasks",
  "browser",
  "write",
  "terminal",
] as const;
export type ResourceClass = (typeof RESOURCE_CLASSES)[number];

/** What a call does to the world. Anything not `READ` declares a write. */
export const EFFECTS = ["READ", "IDEMPOTENT_WRITE", "NON_IDEMPOTENT_WRITE"] as const;
export type Effect = (typeof EFFECTS)[number];

/**
 * One tool call as the model emitted it. `arguments` is the raw text exactly as
 * emitted (possibly not JSON); `batchIndex` is its position in the original
 * batch and never changes across waves and barriers.
 */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
  batchIndex: number;
}

/** Limits of one run (docs/planning-rules.md#limits). */
export interface Limits {
  maxParallelToolCalls: number;
  maxBatchPayloadBytes: number;
  maxRepairAttempts: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxParallelToolCalls: 8,
  maxBatchPayloadBytes: 256 * 1024,
  maxRepairAttempts: 2,
};

/** A problem found while planning: a call's (`batchIndex`) or the whole batch's (`null`). */
export interface PlanProblem {
  batchIndex: number | null;
  code: PlanProblemCode;
  message: string;
}

export const PLAN_PROBLEM_CODES = [
  "too_many_calls",
  "payload_too_large",
  "terminal_with_siblings",
  "unknown_tool",
  "malformed_arguments",
  "invalid_arguments",
  "not_pure_read",
  "approval_gated",
  "terminal_in_oversized_batch",
  "no_tool_calls",
  /** The legacy policy (for comparison): a batch over the cap is refused whole. */
  "legacy_over_cap",
  /** The legacy policy (for comparison): the calls after a gated call are dropped, to be regenerated. */
  "legacy_cut_after_gate",
  /** A policy rule denied the call (docs/policies.md#how-a-call-is-decided): it is settled with the rule's message, never run. */
  "policy_denied",
] as const;
export type PlanProblemCode = (typeof PLAN_PROBLEM_CODES)[number];

/** Calls dispatched together (`wave`) or one approval-gated call (`barrier`). */
export type PlanSegment = { kind: "wave"; batchIndexes: number[] } | { kind: "barrier"; batchIndex: number };

/**
 * The plan of one batch, exactly the `plan` shape of the run report (docs/run-report.md).
 * A `repair` plan has no segments and schedules nothing. An `execute` plan's
 * `problems` lists the calls that failed preflight and will not be dispatched
 * (docs/planning-rules.md#the-rules-in-order-the-first-that-applies-wins, rule 6).
 */
export type Plan =
  | { kind: "execute"; segments: PlanSegment[]; problems: PlanProblem[] }
  /** Nothing runs: the whole batch goes back to the model with every problem. */
  | { kind: "repair"; segments: []; problems: PlanProblem[] };
