import { applyGrants } from "../grants/apply-grants";
import { capModelText } from "../model/cap-model-text";
import type { ModelToolCall, TranscriptEntry } from "../model/model";
import { buildPreamble } from "../model/preamble";
import { type BatchPlanning, planBatch } from "../planner/plan-batch";
import { applyLegacyPolicy } from "../planner/plan-legacy";
import type { PreflightedCall } from "../planner/preflight";
import { toShadowRecord } from "../policy/shadow-record";
import { inSpan, type Span } from "../tracing";
import type { Plan, PlanProblem, ToolCall } from "../types";
import type { RunEnvironment } from "./run-environment";
import type { CallOutcome } from "./run-types";
import { computeStepMetrics } from "./step-metrics";
import type { StepProgress } from "./suspended-state";
import { markAllowedCalls, withAllowances } from "./tool-allowances";

/** Where the run stands between steps. */
export interface Between {
  transcript: TranscriptEntry[];
  modelCalls: number;
  nextStepIndex: number;
  /** Legacy policy: the calls the model was asked to send again (a script's answer, given by the runtime). */
  reissue?: ToolCall[] | null;
}

/** What asking the model for the next step came to. */
export type NextStep =
  /** An executable step, stored with its calls and ready to run from its first segment. */
  | { kind: "execute"; progress: StepProgress; modelCalls: number }
  /** The batch was sent back: the transcript now ends with the repair notice. */
  | {
      kind: "repair";
      transcript: TranscriptEntry[];
      modelCalls: number;
      problems: PlanProblem[];
      cancelPending: "turn" | "run" | null;
      /** Legacy policy: the calls to send again in the next completion. */
      reissue: ToolCall[] | null;
    }
  /** A cancellation aborted the model call: the turn (ask again) or the whole run. */
  | { kind: "cancelled"; scope: "turn" | "run" };

/**
 * One model completion, planned (docs/planning-rules.md) and stored as step
 * `between.nextStepIndex` with its calls and planned metrics. A repair
 * dispatches nothing and sends the model a notice listing every problem.
 */
export function planNextStep(environment: RunEnvironment, between: Between): Promise<NextStep> {
  return inSpan("planning", { "tool_playground.step.index": between.nextStepIndex }, async (span) => {
    try {
      return await askAndPlan(environment, between, span);
    } finally {
      // After the step is stored (or the call failed): a page keeps the draft until the step's event lands.
      environment.drafts?.end();
    }
  });
}

async function askAndPlan(environment: RunEnvironment, between: Between, span: Span): Promise<NextStep> {
  const { store, runId, claimToken, registry, limits } = environment;
  const signal = environment.stepSignal();
  const preamble = environment.model.readsPreamble ? buildPreamble(limits, registry) : null;
  // Legacy policy, scripted model: the runtime answers the repair itself, with the calls it asked for.
  const synthesized =
    environment.executionPolicy === "legacy" && between.reissue && !environment.model.answersLegacyRepairs
      ? between.reissue
      : null;
  let completion: Awaited<ReturnType<typeof environment.model.complete>>;
  const asked = performance.now();
  try {
    completion = synthesized
      ? {
          text: null,
          calls: synthesized.map((call) => ({
            id: `${call.id}~again`,
            name: call.name,
            arguments: call.arguments,
          })),
        }
      : await inSpan(
          `chat ${environment.model.name ?? "model"}`,
          { "gen_ai.operation.name": "chat", "gen_ai.request.model": environment.model.name ?? "unnamed" },
          async (completionSpan) => {
            const answered = await environment.model.complete({
              ...(preamble ? { preamble } : {}),
              transcript: between.transcript,
              tools: registry
                .list()
                .map(({ name, description, parameters }) => ({ name, description, parameters })),
              completionIndex: between.modelCalls,
              signal,
              ...(environment.drafts
                ? { onPartial: (partial) => environment.drafts?.publish(between.nextStepIndex, partial) }
                : {}),
            });
            if (answered.usage) {
              completionSpan.setAttributes({
                "gen_ai.usage.input_tokens": answered.usage.promptTokens,
                "gen_ai.usage.output_tokens": answered.usage.completionTokens,
              });
            }
            return answered;
          },
        );
  } catch (error) {
    // A cancellation aborts the model call: that is the cancel taking effect, not the model failing.
    const cancelled = signal.aborted ? await store.takeCancelRequest(runId, claimToken) : null;
    if (cancelled) return { kind: "cancelled", scope: cancelled };
    throw error;
  }
  const latencyMs = Math.round(performance.now() - asked);
  // Kept, shown, stored and told back to the model as one text, within the limit.
  const text = capModelText(completion.text);
  const modelCalls = between.modelCalls + 1;
  const stepIndex = between.nextStepIndex;
  const calls = normalizeCalls(completion.calls, stepIndex);
  const allowances = environment.allowances.current;
  const granted = withAllowances(registry, allowances);
  const policies = calls.length > 0 && environment.policies ? await environment.policies.current() : null;
  const policyRun = environment.policyRun ?? { starter: "", agent: "", metadata: {} };
  const plannedAt = new Date(environment.now());
  const declared =
    calls.length === 0
      ? EMPTY_BATCH
      : planBatch(
          calls,
          granted,
          limits,
          policies?.live ? { active: policies.live, run: policyRun, now: plannedAt } : undefined,
        );
  // After the policy: a grant waives only a declaration's gate (docs/policies.md#grants).
  const planned = environment.grants
    ? await applyGrants(calls, declared, registry, limits, {
        store: environment.grants.store,
        subject: environment.grants.subject,
        run: policyRun,
        now: plannedAt,
      })
    : declared;
  // A shadow policy decides nothing: its plan is only recorded, call by call (docs/policies.md#publishing-versions-and-shadow).
  const shadow = policies?.shadow;
  const shadowCalls =
    shadow && shadow.version !== null
      ? planBatch(calls, granted, limits, { active: shadow, run: policyRun, now: plannedAt }).calls
      : null;
  const legacy =
    environment.executionPolicy === "legacy" && calls.length > 0
      ? applyLegacyPolicy(calls, planned.calls, planned.plan, limits.maxParallelToolCalls)
      : { plan: planned.plan, reissue: null };
  const { plan } = legacy;
  const preflighted = markAllowedCalls(calls, planned.calls, registry, allowances).map((call, index) => {
    const shadowCall = shadowCalls?.[index];
    return shadowCall && shadow?.version != null
      ? { ...call, shadow: toShadowRecord(shadow.version, shadowCall) }
      : call;
  });
  const transcript: TranscriptEntry[] = [
    ...between.transcript,
    { role: "assistant", text, calls, ...(synthesized ? { synthesized: true } : {}) },
  ];
  span.setAttributes({
    "tool_playground.plan.batch_size": calls.length,
    "tool_playground.plan.cap": limits.maxParallelToolCalls,
    "tool_playground.plan.kind": plan.kind,
    "tool_playground.plan.waves": plan.segments.filter((segment) => segment.kind === "wave").length,
    "tool_playground.plan.barriers": plan.segments.filter((segment) => segment.kind === "barrier").length,
  });
  const outcomes = notDispatchedOutcomes(plan, preflighted);
  const metrics = computeStepMetrics(plan, calls.length, limits, { completedWaves: 0, invalidatedCount: 0 });
  await store.recordStep(
    runId,
    claimToken,
    {
      index: stepIndex,
      completion: { latencyMs, usage: completion.usage ?? null, preamble, synthesized: synthesized !== null },
      text,
      plan,
      metrics,
      calls: preflighted.map((call) => ({
        call,
        status: outcomes[call.batchIndex]?.status ?? "pending",
        error: outcomes[call.batchIndex]?.error ?? null,
      })),
    },
    modelCalls,
  );
  environment.telemetry?.completionPlanned({
    model: environment.model.name ?? "unnamed",
    latencyMs,
    usage: completion.usage ?? null,
    repair: plan.kind === "repair",
    synthesized: synthesized !== null,
  });

  if (plan.kind === "repair") {
    const { cancelPending } = await store.finishStep(runId, claimToken, stepIndex, metrics);
    return {
      kind: "repair",
      cancelPending,
      transcript: [...transcript, { role: "repair_notice", text: formatRepairNotice(plan.problems) }],
      modelCalls,
      problems: plan.problems,
      reissue: legacy.reissue,
    };
  }
  return {
    kind: "execute",
    modelCalls,
    progress: {
      stepIndex,
      calls: preflighted,
      plan,
      nextSegment: 0,
      completedWaves: 0,
      outcomes,
      transcript,
    },
  };
}

/**
 * A completion without tool calls is sent back like a repair: the run only
 * ends through `finish`, and the repair bound stops a model that never calls it.
 */
const EMPTY_BATCH: BatchPlanning = {
  plan: {
    kind: "repair",
    segments: [],
    problems: [
      {
        batchIndex: null,
        code: "no_tool_calls",
        message: "The response had no tool calls: call finish to end the run, or reply to answer and go on.",
      },
    ],
  },
  calls: [],
};

/**
 * Outcomes known at planning time: every call of a repair plan, and each call
 * an execute plan lists as a problem, is settled `not_dispatched` with its
 * problem as the error (docs/planning-rules.md#the-rules-in-order-the-first-that-applies-wins, rules 1b–6).
 */
function notDispatchedOutcomes(plan: Plan, calls: readonly PreflightedCall[]): Record<string, CallOutcome> {
  const problemOf = new Map(plan.problems.map((problem) => [problem.batchIndex, problem]));
  const outcomes: Record<string, CallOutcome> = {};
  for (const call of calls) {
    const problem = problemOf.get(call.batchIndex) ?? (plan.kind === "repair" ? BATCH_SENT_BACK : undefined);
    if (problem) {
      outcomes[call.batchIndex] = {
        status: "not_dispatched",
        result: null,
        error: { code: problem.code, message: problem.message },
      };
    }
  }
  return outcomes;
}

const BATCH_SENT_BACK = { code: "repair", message: "The batch was sent back for repair." };

/** Gives every call its place in the batch and an id (the model's, or `call_<step>_<index>`). */
export function normalizeCalls(calls: readonly ModelToolCall[], stepIndex: number): ToolCall[] {
  return calls.map((call, batchIndex) => ({
    id: call.id && call.id.length > 0 ? call.id : `call_${stepIndex}_${batchIndex}`,
    name: call.name,
    arguments: call.arguments,
    batchIndex,
  }));
}

/** The notice a model gets instead of results when its batch is refused: every problem, one per line. */
export function formatRepairNotice(problems: readonly PlanProblem[]): string {
  const lines = problems.map(
    (problem) =>
      `- ${problem.batchIndex === null ? "batch" : `call ${problem.batchIndex}`}: [${problem.code}] ${problem.message}`,
  );
  return `None of your tool calls were executed. Send a corrected response that fixes every problem:\n${lines.join("\n")}`;
}
