/**
 * The legacy policy, kept to compare against: what this product replaces.
 * An oversized batch is refused whole, even one of reads the runtime could
 * run in waves, and the model is asked for a batch within the cap; a batch
 * with a gated call is cut after the gate, and the model regenerates the
 * rest after the decision. Each costs a completion the barriers policy
 * does not spend. Applied on top of the barriers plan of the same batch.
 */

import type { Plan, PlanProblem, ToolCall } from "../types";
import type { PreflightedCall } from "./preflight";

export interface LegacyPlanning {
  plan: Plan;
  /**
   * The calls the model is asked for at once, after a refusal. (The calls a
   * cut drops are asked for once the gate ran: see {@link legacyReissueAfter}.)
   */
  reissue: ToolCall[] | null;
}

export function applyLegacyPolicy(
  calls: readonly ToolCall[],
  preflighted: readonly PreflightedCall[],
  plan: Plan,
  cap: number,
): LegacyPlanning {
  if (calls.length > cap) {
    return {
      plan: {
        kind: "repair",
        segments: [],
        problems: [
          {
            batchIndex: null,
            code: "legacy_over_cap",
            message: `The batch has ${calls.length} calls; send at most ${cap} (the legacy policy refuses a larger batch whole).`,
          },
        ],
      },
      reissue: calls.slice(0, cap),
    };
  }
  if (plan.kind !== "execute") return { plan, reissue: null };
  const gateAt = plan.segments.findIndex((segment) => segment.kind === "barrier");
  if (gateAt < 0 || gateAt === plan.segments.length - 1) return { plan, reissue: null };
  const cut = plan.segments
    .slice(gateAt + 1)
    .flatMap((segment) => (segment.kind === "wave" ? segment.batchIndexes : [segment.batchIndex]))
    .sort((a, b) => a - b);
  const problems: PlanProblem[] = cut.map((batchIndex) => ({
    batchIndex,
    code: "legacy_cut_after_gate",
    message: `${preflighted[batchIndex]?.name ?? "call"} was not sent: the legacy policy cuts a batch after its gated call; the model sends it again after the decision.`,
  }));
  return {
    plan: {
      ...plan,
      segments: plan.segments.slice(0, gateAt + 1),
      problems: [...plan.problems, ...problems],
    },
    reissue: null,
  };
}

/** A step as the legacy policy looks back at it: its plan, cap and calls with their statuses. */
interface PlannedStep {
  plan: Plan;
  metrics: { cap: number };
  calls: ReadonlyArray<ToolCall & { status: string }>;
}

/**
 * The calls the legacy policy asks the model for again after a finished
 * step: the first `cap` calls of a batch it refused; the calls it cut after a
 * gate that ran. Each costs the run a completion the barriers policy does not
 * spend. Null when it asks for nothing (a gate denied or failed: the model is
 * told instead).
 */
export function legacyReissueAfter(step: PlannedStep): ToolCall[] | null {
  const toCall = ({ id, name, arguments: args, batchIndex }: ToolCall) => ({
    id,
    name,
    arguments: args,
    batchIndex,
  });
  const { problems } = step.plan;
  if (problems.some((problem) => problem.code === "legacy_over_cap")) {
    return step.calls.slice(0, step.metrics.cap).map(toCall);
  }
  const cut = new Set(
    problems.flatMap((problem) => (problem.code === "legacy_cut_after_gate" ? [problem.batchIndex] : [])),
  );
  if (cut.size === 0) return null;
  const gate = step.plan.segments.at(-1);
  const gateRan =
    gate?.kind === "barrier" &&
    step.calls.find((call) => call.batchIndex === gate.batchIndex)?.status === "ok";
  return gateRan ? step.calls.filter((call) => cut.has(call.batchIndex)).map(toCall) : null;
}

/** Completions a run spent only because the legacy policy refused or cut a batch (none under barriers). */
export function countWastedCompletions(steps: readonly PlannedStep[]): number {
  return steps.filter((step) => legacyReissueAfter(step) !== null).length;
}
