/**
 * The backtest of docs/policies.md#backtest: a candidate policy over recorded runs. For each call
 * a recorded step planned, what the candidate would have done, beside what happened; and totals,
 * counted exactly from those rows.
 */
import type { StoredRunEvent } from "../events/run-events";
import { type ActivePolicy, decideCall, type PolicyDecision } from "./decide-call";
import type { PolicyOutcome } from "./policy-source";

/** What the host knows today that the recording does not keep (docs/policies.md#backtest). */
export interface BacktestHost {
  /** The tool's declared effect in that run's scenario, as declared now; undefined for a tool it no longer knows. */
  describeTool(name: string, runId: string): { effect: string } | undefined;
  /** The operator's trust in an MCP server now, as a run would be given it. */
  trustOf(server: string): "trusted" | "untrusted";
}

/** A recorded run: its event log, and the agent that drove it (as its scenario names it). */
export interface RecordedRun {
  runId: string;
  events: readonly StoredRunEvent[];
  /** The agent driving the run, or null when its model was not an outside agent. */
  agent: { name: string; metadata: Record<string, string> } | null;
}

/** Which calls the backtest reports: of one tool, and (applied by whoever reads the logs) of some runs. */
export interface BacktestFilter {
  tool?: string;
}

export interface BacktestRow {
  runId: string;
  /** 1-based, as the run page numbers steps. */
  step: number;
  batchIndex: number;
  callId: string;
  toolName: string;
  arguments: string;
  plannedAt: string;
  /** What happened: gated (waited for a person), allowed (ran without asking) or denied by the live policy then. */
  recorded: PolicyOutcome;
  candidate: PolicyOutcome;
  /** How many approvers the recording's gate needed (1 unless a rule asked a quorum); null when it was not gated. */
  recordedQuorum: number | null;
  /** The rule that decided, or null when the declaration did (the recorded gating stands). */
  rule: string | null;
  quorum: number | null;
  error: string | null;
}

export interface BacktestTotals {
  calls: number;
  /** Calls whose outcome would change. */
  differences: number;
  /** Recorded as gated, the candidate allows: approvals no one would be asked for. */
  approvalsNoLongerAsked: number;
  /** Calls the candidate denies. */
  denied: number;
  /** Calls the candidate gates that ran without asking. */
  newlyGated: number;
  /** Gates the candidate asks for that need a second (or further) approver. */
  waitsNeedingSecondApprover: number;
}

/**
 * Approvals people are asked for on one UTC day (by when the call was planned): each gated call
 * counts once per approver its quorum needs. `before` is what the recording asked, `after` what
 * the candidate would have.
 */
export interface ApproverWorkloadDay {
  day: string;
  before: number;
  after: number;
}

export interface BacktestResult {
  rows: BacktestRow[];
  totals: BacktestTotals;
  workload: ApproverWorkloadDay[];
}

/**
 * Runs `candidate` over the event logs of recorded runs. Only calls that preflighted cleanly are
 * asked (a call refused for its arguments would be refused again); a call the recording let through
 * under a grant counts as allowed. A rule sees what it would have seen live: the call with its
 * tool's MCP server (from the run's servers and the tool's name prefix) and that server's trust,
 * the run's starter, agent and metadata, the whole batch, and when it was planned. Pure: same logs,
 * same answer.
 */
export function backtestPolicy(
  candidate: ActivePolicy,
  logs: readonly RecordedRun[],
  host: BacktestHost,
  filter: BacktestFilter = {},
): BacktestResult {
  const rows: BacktestRow[] = [];
  for (const { runId, events, agent } of logs) {
    let starter = "";
    let servers: readonly string[] = [];
    const driver = { agent: agent?.name ?? "", metadata: { ...(agent?.metadata ?? {}) } };
    for (const event of events) {
      if (event.type === "run_started") {
        starter = event.payload.startedBy?.id ?? "";
        servers = event.payload.mcpServers;
      }
      if (event.type !== "step_planned") continue;
      const { calls, plan } = event.payload;
      const refused = new Set(
        plan.problems.flatMap((problem) =>
          problem.batchIndex === null || problem.code === "policy_denied" ? [] : [problem.batchIndex],
        ),
      );
      if (plan.kind === "repair") continue;
      const tools = calls.map((call) => call.name);
      for (const call of calls) {
        if (refused.has(call.batchIndex)) continue;
        // The batch is whole in the context: a filtered-out sibling still counts in batch.size.
        if (filter.tool !== undefined && call.name !== filter.tool) continue;
        const args = parseObject(call.arguments);
        if (args === null) continue;
        const server = servers.find((id) => call.name.startsWith(`${id}__`)) ?? "";
        const decision = decideCall(candidate, {
          call: {
            name: call.name,
            arguments: args,
            effect: host.describeTool(call.name, runId)?.effect ?? "",
            resourceClass: call.resourceClass ?? "",
            server,
            trust: server === "" ? "" : host.trustOf(server),
            fingerprint: call.toolFingerprint ?? "",
          },
          run: { starter, ...driver },
          now: new Date(event.at),
          batch: { size: calls.length, tools },
        });
        const recorded: PolicyOutcome =
          call.policy?.effect === "deny" ? "deny" : call.isGated ? "require" : "allow";
        // No rule matched: the declaration decides, as it did then (a grant then still counts as allowed).
        const declared: PolicyOutcome = (call.gatedByDeclaration ?? call.isGated) ? "require" : "allow";
        rows.push({
          runId,
          step: event.payload.stepIndex + 1,
          batchIndex: call.batchIndex,
          callId: call.id,
          toolName: call.name,
          arguments: call.arguments,
          plannedAt: event.at,
          recorded,
          recordedQuorum:
            recorded === "require" ? (call.policy?.effect === "require" ? call.policy.quorum : 1) : null,
          candidate: decision ? outcomeOfDecision(decision) : declared,
          rule: decision?.rule ?? null,
          quorum: decision?.effect === "require" ? decision.quorum : null,
          error: decision?.effect === "require" ? (decision.error ?? null) : null,
        });
      }
    }
  }
  return { rows, totals: countTotals(rows), workload: countWorkload(rows) };
}

function outcomeOfDecision(decision: PolicyDecision): PolicyOutcome {
  return decision.effect;
}

function countTotals(rows: readonly BacktestRow[]): BacktestTotals {
  const totals: BacktestTotals = {
    calls: rows.length,
    differences: 0,
    approvalsNoLongerAsked: 0,
    denied: 0,
    newlyGated: 0,
    waitsNeedingSecondApprover: 0,
  };
  for (const row of rows) {
    if (row.recorded !== row.candidate) totals.differences += 1;
    if (row.recorded === "require" && row.candidate === "allow") totals.approvalsNoLongerAsked += 1;
    if (row.candidate === "deny") totals.denied += 1;
    if (row.recorded === "allow" && row.candidate === "require") totals.newlyGated += 1;
    if (row.candidate === "require" && (row.quorum ?? 1) >= 2) totals.waitsNeedingSecondApprover += 1;
  }
  return totals;
}

function countWorkload(rows: readonly BacktestRow[]): ApproverWorkloadDay[] {
  const days = new Map<string, ApproverWorkloadDay>();
  for (const row of rows) {
    const day = row.plannedAt.slice(0, 10);
    const counted = days.get(day) ?? { day, before: 0, after: 0 };
    if (row.recorded === "require") counted.before += row.recordedQuorum ?? 1;
    if (row.candidate === "require") counted.after += row.quorum ?? 1;
    days.set(day, counted);
  }
  return [...days.values()].sort((left, right) => left.day.localeCompare(right.day));
}

function parseObject(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
