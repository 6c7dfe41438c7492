/**
 * Where approvals wait, across runs: the numbers behind the insights page.
 * Each run is read through the one fold (./run-view.ts) and the timeline's
 * waits (./run-timeline.ts), so the dashboard and a run's own page never
 * disagree about a wait's length or who decided it. Pure data.
 */
import type { RunEventOf, StoredRunEvent } from "../events/run-events";
import { foldRunEvents, type StepView } from "../events/run-view";
import { countWastedCompletions } from "../planner/plan-legacy";
import { buildRunTimeline } from "./run-timeline";

export interface DecisionTimes {
  decisions: number;
  /** Nearest-rank percentiles of the time from the wait's start to the decision, in ms. */
  p50Ms: number;
  p90Ms: number;
  maxMs: number;
}

export interface ApprovalInsights {
  since: string;
  until: string;
  /** Runs with a step or a wait in the range. */
  runs: number;
  waits: { started: number; decided: number; expired: number; cancelled: number; open: number };
  /** Waits started per bucket of the range, oldest first. */
  waitsOverTime: Array<{ start: string; started: number; expired: number }>;
  byTool: Array<{ tool: string; waits: number; expired: number } & DecisionTimes>;
  byApprover: Array<{ approver: string } & DecisionTimes>;
  /** Waits per MCP server (`<server>__<tool>`); the playground's own tools count as "built-in". */
  byServer: Array<{ server: string; waits: number }>;
  /** Calls planned in the range: gated (a person decides), let through by a grant ("always allow"), or neither. */
  calls: { total: number; gated: number; allowedByGrant: number; ungated: number };
  /**
   * Completions the model spent, and what the legacy policy (lib/runtime/planner/plan-legacy.ts) would have
   * spent on top: a batch over the cap refused whole, a batch cut after its gate and sent again.
   * Runs under the legacy policy count what they actually wasted.
   */
  completions: { total: number; savedByWavesAndBarriers: number; wastedUnderLegacy: number };
}

export interface InsightsRange {
  since: string;
  until: string;
  /** Width of a bucket of waitsOverTime, in ms. */
  bucketMs: number;
}

const BUILT_IN = "built-in";

/** Summarises runs' event logs (each in seq order) over a range of time. */
export function summariseApprovals(
  runs: ReadonlyArray<{ runId: string; events: readonly StoredRunEvent[] }>,
  range: InsightsRange,
): ApprovalInsights {
  const since = Date.parse(range.since);
  const until = Date.parse(range.until);
  const inRange = (at: number) => at >= since && at < until;
  const buckets = Math.max(1, Math.ceil((until - since) / range.bucketMs));
  const overTime = Array.from({ length: buckets }, (_, i) => ({
    start: new Date(since + i * range.bucketMs).toISOString(),
    started: 0,
    expired: 0,
  }));
  const waits = { started: 0, decided: 0, expired: 0, cancelled: 0, open: 0 };
  const tools = new Map<string, { waits: number; expired: number; times: number[] }>();
  const approvers = new Map<string, number[]>();
  const servers = new Map<string, number>();
  const calls = { total: 0, gated: 0, allowedByGrant: 0, ungated: 0 };
  const completions = { total: 0, savedByWavesAndBarriers: 0, wastedUnderLegacy: 0 };
  let counted = 0;

  for (const run of runs) {
    const view = foldRunEvents(run.runId, run.events);
    const timeline = buildRunTimeline(run.events, until);
    const origin = timeline.origin === null ? 0 : Date.parse(timeline.origin);
    let touched = false;

    const plannedAt = new Map(
      run.events.flatMap((event) =>
        event.type === "step_planned" ? [[event.payload.stepIndex, Date.parse(event.at)] as const] : [],
      ),
    );
    for (const step of view.steps) {
      if (!inRange(plannedAt.get(step.index) ?? Number.NaN)) continue;
      touched = true;
      completions.total += 1;
      const legacy = step.plan.problems.some((problem) => problem.code.startsWith("legacy_"));
      if (legacy) completions.wastedUnderLegacy += countWastedCompletions([step]);
      else completions.savedByWavesAndBarriers += legacyWouldSpend(step);
      for (const call of step.calls) {
        calls.total += 1;
        if (call.allowedBy) calls.allowedByGrant += 1;
        else if (call.isGated) calls.gated += 1;
        else calls.ungated += 1;
      }
    }

    for (const wait of timeline.waits) {
      const startedAt = origin + wait.start;
      if (!inRange(startedAt)) continue;
      touched = true;
      // The barrier is the first call of the turn the person was shown.
      const shown = run.events.find(
        (event): event is RunEventOf<"awaiting_approval"> & StoredRunEvent =>
          event.type === "awaiting_approval" &&
          event.payload.stepIndex === wait.stepIndex &&
          event.payload.turnDigest === wait.turnDigest,
      );
      const tool = shown?.payload.calls[0]?.name ?? "unknown";
      const perTool = tools.get(tool) ?? { waits: 0, expired: 0, times: [] };
      tools.set(tool, perTool);
      perTool.waits += 1;
      waits.started += 1;
      const bucket = overTime[Math.floor((startedAt - since) / range.bucketMs)];
      if (bucket) bucket.started += 1;
      const server = tool.includes("__") ? (tool.split("__")[0] ?? BUILT_IN) : BUILT_IN;
      servers.set(server, (servers.get(server) ?? 0) + 1);

      if (wait.open) waits.open += 1;
      else if (wait.endedBy === "expiry") {
        waits.expired += 1;
        perTool.expired += 1;
        if (bucket) bucket.expired += 1;
      } else if (wait.endedBy === "decision") {
        const decision = view.decisions.find(
          (d) => d.kind === "decision" && d.stepIndex === wait.stepIndex && d.turnDigest === wait.turnDigest,
        );
        if (!decision) continue;
        waits.decided += 1;
        const took = wait.end - wait.start;
        perTool.times.push(took);
        approvers.set(decision.actor, [...(approvers.get(decision.actor) ?? []), took]);
      } else waits.cancelled += 1;
    }
    if (touched) counted += 1;
  }

  return {
    since: range.since,
    until: range.until,
    runs: counted,
    waits,
    waitsOverTime: overTime,
    byTool: [...tools.entries()]
      .map(([tool, { waits: n, expired, times }]) => ({ tool, waits: n, expired, ...decisionTimes(times) }))
      .sort((a, b) => b.waits - a.waits || a.tool.localeCompare(b.tool)),
    byApprover: [...approvers.entries()]
      .map(([approver, times]) => ({ approver, ...decisionTimes(times) }))
      .sort((a, b) => b.decisions - a.decisions || a.approver.localeCompare(b.approver)),
    byServer: [...servers.entries()]
      .map(([server, n]) => ({ server, waits: n }))
      .sort((a, b) => b.waits - a.waits || a.server.localeCompare(b.server)),
    calls,
    completions,
  };
}

/** Nearest-rank percentiles: always a time that was measured, never an interpolation. */
function decisionTimes(times: readonly number[]): DecisionTimes {
  const sorted = [...times].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;
  return { decisions: sorted.length, p50Ms: rank(0.5), p90Ms: rank(0.9), maxMs: sorted.at(-1) ?? 0 };
}

/**
 * What the legacy policy would have spent on a step the barriers policy ran: one completion for a
 * batch over the cap (refused whole), one for the calls after a gate that ran (cut, sent again).
 */
function legacyWouldSpend(step: StepView): number {
  const overCap = step.calls.length > step.metrics.cap ? 1 : 0;
  const { segments } = step.plan;
  const gateAt = segments.findIndex((segment) => segment.kind === "barrier");
  const gate = segments[gateAt];
  const gateRan =
    gate?.kind === "barrier" &&
    step.calls.find((call) => call.batchIndex === gate.batchIndex)?.status === "ok";
  const cut = gateAt >= 0 && gateAt < segments.length - 1 && gateRan ? 1 : 0;
  return overCap + cut;
}
