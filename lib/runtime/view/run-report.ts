import { type DecisionFacts, type DecisionView, foldRunEvents, type RunView } from "../events/run-view";
import type { CompletionRecord, ModelUsage } from "../model/model";
import { countWastedCompletions } from "../planner/plan-legacy";
import type { StoredApproval } from "../run/approval-records";
import type { ApprovalStore, RunEventLog } from "../run/run-store";
import type { CallStatus, PendingTurn, RunError, RunStatus, StepMetrics } from "../run/run-types";
import type { Plan } from "../types";

/** The run report of docs/run-report.md: a public contract read by scripts. */
export interface RunReport {
  runId: string;
  name: string;
  status: RunStatus;
  error: RunError | null;
  modelCalls: number;
  /**
   * Run-wide figures: the completions the run used and the tokens they cost
   * (null when the model reported none); how often the run was recovered
   * after its worker was gone, and the completions that cost.
   */
  metrics: {
    completions: number;
    tokens: ModelUsage | null;
    /** Completions spent only because the legacy policy refused or cut a batch the runtime could have run. */
    wastedCompletions: number;
    recoveries: number;
    recoveredCompletions: number;
  };
  pending: PendingTurn | null;
  steps: Array<{
    index: number;
    /** The completion it comes from: latency, usage (null when unreported), the preamble the model read. */
    completion: CompletionRecord | null;
    text: string | null;
    plan: Plan;
    calls: Array<{
      batchIndex: number;
      id: string;
      name: string;
      /** As the model sent them. */
      arguments: string;
      /** What the call ran with instead, when an approver changed them; else null. */
      editedArguments: string | null;
      status: CallStatus;
      startSeq: number | null;
      settleSeq: number | null;
      result: unknown;
      error: RunError | null;
    }>;
    metrics: StepMetrics;
  }>;
  /** The signed-in person who started the run; null for headless runs. */
  startedBy: { id: string; name: string } | null;
  /** The run and step (1-based) this run is a fork of; null for other runs (docs/transcript-and-fork.md). */
  forkedFrom: { runId: string; step: number } | null;
  decisions: RunReportDecision[];
}

/** One row of the report's `decisions`: an audit row, or a decision the audit could not store. */
export interface RunReportDecision extends DecisionFacts {
  decidedAt: string;
  /**
   * `voided`: the approval it names (`grantedBy`) no longer held, since its tool's definition
   * changed; `partial`: one approval toward a quorum that did not yet meet it (docs/policies.md#quorum).
   */
  kind: "decision" | "expiry" | "automatic" | "voided" | "partial";
  /** The gate decided (null on rows from before gates were recorded). */
  batchIndex: number | null;
  toolName: string | null;
  /** The gate's arguments as shown and their digest; what an approver changed them to and its digest. */
  arguments: string | null;
  argumentsDigest: string | null;
  editedDigest: string | null;
}

/**
 * The report of a run: its folded events, with decisions taken from the
 * append-only approvals audit. A decision the audit could not store (which
 * went on only because it executed no write) is listed from its event, marked
 * `audited: false`, so the report names every decision that took effect.
 */
export function buildRunReport(view: RunView, approvals: readonly StoredApproval[]): RunReport {
  const audited = approvals.map(
    (approval): RunReportDecision => ({
      turnDigest: approval.turnDigest,
      approve: approval.approve,
      actor: approval.actor,
      actorId: approval.actorId,
      reason: approval.reason,
      outcome:
        approval.kind === "expiry"
          ? "expired"
          : approval.kind === "voided"
            ? "voided"
            : approval.kind === "partial"
              ? "counted"
              : approval.approve
                ? "executed"
                : "denied",
      audited: true,
      decidedAt: approval.decidedAt,
      decisionId: approval.decisionId,
      kind: approval.kind,
      scope: approval.scope,
      batchIndex: approval.batchIndex,
      toolName: approval.toolName,
      arguments: approval.arguments,
      argumentsDigest: approval.argumentsDigest,
      editedArguments: approval.editedArguments,
      editedDigest: approval.editedDigest,
    }),
  );
  const unaudited = view.decisions.filter((decision) => !decision.audited).map(unauditedDecision);
  return {
    runId: view.runId,
    name: view.name,
    status: view.status,
    error: view.error,
    modelCalls: view.modelCalls,
    metrics: {
      completions: view.modelCalls,
      tokens: sumUsage(view.steps),
      wastedCompletions: countWastedCompletions(view.steps),
      recoveries: view.recoveries,
      recoveredCompletions: view.recoveredCompletions,
    },
    startedBy: view.startedBy,
    forkedFrom: view.forkedFrom,
    pending: view.pending
      ? {
          turnDigest: view.pending.turnDigest,
          calls: view.pending.calls,
          gates: view.pending.gates,
          ...(view.pending.expiresAt ? { expiresAt: view.pending.expiresAt } : {}),
          ...(view.pending.tools ? { tools: view.pending.tools } : {}),
          ...(view.pending.quorum ? { quorum: view.pending.quorum } : {}),
          ...(view.pending.approvals ? { approvals: view.pending.approvals } : {}),
        }
      : null,
    steps: view.steps.map((step) => ({
      index: step.index,
      completion: step.completion,
      text: step.text,
      plan: step.plan,
      calls: step.calls.map((call) => ({
        batchIndex: call.batchIndex,
        id: call.id,
        name: call.name,
        arguments: call.arguments,
        editedArguments: call.editedArguments,
        // A live view's `running` never reaches a report of a run at rest; a run read mid-step shows it as it is.
        status: call.status,
        startSeq: call.startSeq,
        settleSeq: call.settleSeq,
        result: call.result,
        error: call.error,
      })),
      metrics: step.metrics,
    })),
    decisions: [...audited, ...unaudited].sort((a, b) => a.decidedAt.localeCompare(b.decidedAt)),
  };
}

/** The tokens the run's completions cost, summed; null when no completion reported any. */
export function sumUsage(steps: ReadonlyArray<{ completion: CompletionRecord | null }>): ModelUsage | null {
  const reported = steps.flatMap((step) => (step.completion?.usage ? [step.completion.usage] : []));
  if (reported.length === 0) return null;
  return reported.reduce((sum, usage) => ({
    promptTokens: sum.promptTokens + usage.promptTokens,
    completionTokens: sum.completionTokens + usage.completionTokens,
    totalTokens: sum.totalTokens + usage.totalTokens,
  }));
}

function unauditedDecision(decision: DecisionView): RunReportDecision {
  return {
    turnDigest: decision.turnDigest,
    approve: decision.approve,
    actor: decision.actor,
    actorId: decision.actorId,
    reason: decision.reason,
    outcome: decision.outcome,
    audited: false,
    decidedAt: decision.at,
    decisionId: decision.decisionId,
    kind: decision.kind,
    scope: decision.scope,
    batchIndex: decision.gates[0] ?? null,
    toolName: null,
    arguments: null,
    argumentsDigest: null,
    editedArguments: decision.editedArguments,
    editedDigest: null,
  };
}

/** The report of a stored run, or null when there is no such run (every run starts with `run_started`). */
export async function readRunReport(
  store: Pick<RunEventLog, "readEvents"> & Pick<ApprovalStore, "listApprovals">,
  runId: string,
): Promise<RunReport | null> {
  const events = await store.readEvents(runId, 0);
  if (events.length === 0) return null;
  return buildRunReport(foldRunEvents(runId, events), await store.listApprovals(runId));
}
