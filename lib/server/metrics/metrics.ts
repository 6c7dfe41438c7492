import "server-only";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { BUILT_IN_TOOL_NAMES, isRuntimeError, type RunTelemetry } from "@/lib/runtime";
import { processPart } from "@/lib/server/process-parts";

/**
 * The process's Prometheus metrics, served at `GET /api/metrics`. Labels take
 * only bounded values: statuses, outcome and refusal codes, built-in tool
 * names ("custom" for a scenario's own), the operator's model endpoint names.
 * Never a run id, a person, arguments or text anyone typed.
 */
function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "playground_process_" });
  const seconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
  return {
    registry,
    runsByStatus: new Gauge({
      name: "playground_runs",
      help: "Runs in the database, by status: running and waiting ones counted at each scrape, finished ones as of the last minute.",
      labelNames: ["status"] as const,
      registers: [registry],
    }),
    oldestWait: new Gauge({
      name: "playground_oldest_wait_seconds",
      help: "How long the run that has waited longest for a decision has waited (0 when none waits).",
      registers: [registry],
    }),
    decisionSeconds: new Histogram({
      name: "playground_decision_seconds",
      help: "From a decision's arrival until it took effect: for an approval, until its barrier call's call_started was committed.",
      labelNames: ["outcome"] as const,
      buckets: seconds,
      registers: [registry],
    }),
    decisions: new Counter({
      name: "playground_decisions_total",
      help: "Decisions received, by outcome (executed, denied) or by refusal code (stale_turn, not_waiting, …).",
      labelNames: ["outcome", "code"] as const,
      registers: [registry],
    }),
    toolCalls: new Counter({
      name: "playground_tool_calls_total",
      help: "Tool calls that ran, by tool and final status.",
      labelNames: ["tool", "class", "status"] as const,
      registers: [registry],
    }),
    toolCallSeconds: new Histogram({
      name: "playground_tool_call_seconds",
      help: "How long tool calls ran, by tool and final status.",
      labelNames: ["tool", "status"] as const,
      buckets: seconds,
      registers: [registry],
    }),
    completions: new Counter({
      name: "playground_completions_total",
      help: "Model completions, by model and kind: planned (its calls ran), repair (wasted: nothing ran, the model is asked again), synthesized (the runtime answered for a script).",
      labelNames: ["model", "kind"] as const,
      registers: [registry],
    }),
    tokens: new Counter({
      name: "playground_model_tokens_total",
      help: "Tokens the models reported, by model and type (input, output).",
      labelNames: ["model", "type"] as const,
      registers: [registry],
    }),
    completionSeconds: new Histogram({
      name: "playground_completion_seconds",
      help: "How long model completions took, by model.",
      labelNames: ["model"] as const,
      buckets: seconds,
      registers: [registry],
    }),
    sseStreams: new Gauge({
      name: "playground_sse_streams_open",
      help: "Server-sent event streams open on this instance (run pages and inboxes).",
      registers: [registry],
    }),
    runsDriven: new Gauge({
      name: "playground_runs_driven",
      help: "Runs this instance is driving now (a step under way); 0 when stopping it interrupts no run.",
      registers: [registry],
    }),
    recoveries: new Counter({
      name: "playground_recoveries_total",
      help: "Runs this instance took over because their worker was gone.",
      registers: [registry],
    }),
    lostClaims: new Counter({
      name: "playground_lost_claims_total",
      help: "Times a worker on this instance found its run taken over by another and stopped writing.",
      registers: [registry],
    }),
    storeWriteSeconds: new Histogram({
      name: "playground_store_write_seconds",
      help: "How long the run store's writes took (each appends its events in the same statement), by operation.",
      labelNames: ["operation"] as const,
      buckets: seconds,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** The process's metrics: every route bundle of this process counts into the same registry. */
export function getMetrics(): Metrics {
  return processPart("metrics", createMetrics);
}

/** A tool's name as a label: built-in names as they are, a scenario's own tools as "custom". */
export function toolLabel(name: string): string {
  return BUILT_IN_TOOL_NAMES.has(name) ? name : "custom";
}

/** The runtime's telemetry port, counted into the metrics. */
export function metricsTelemetry(metrics: Metrics = getMetrics()): RunTelemetry {
  return {
    completionPlanned({ model, latencyMs, usage, repair, synthesized }) {
      const kind = synthesized ? "synthesized" : repair ? "repair" : "planned";
      metrics.completions.inc({ model, kind });
      if (synthesized) return;
      metrics.completionSeconds.observe({ model }, latencyMs / 1000);
      if (usage) {
        metrics.tokens.inc({ model, type: "input" }, usage.promptTokens);
        metrics.tokens.inc({ model, type: "output" }, usage.completionTokens);
      }
    },
    toolCallSettled({ tool, resourceClass, status, durationMs }) {
      const label = toolLabel(tool);
      metrics.toolCalls.inc({ tool: label, class: resourceClass ?? "unknown", status });
      metrics.toolCallSeconds.observe({ tool: label, status }, durationMs / 1000);
    },
  };
}

/** Times a decision and counts its outcome, or its refusal's code. */
export async function measureDecision<T extends { outcome: string }>(decide: () => Promise<T>): Promise<T> {
  const metrics = getMetrics();
  const started = performance.now();
  try {
    const result = await decide();
    metrics.decisions.inc({ outcome: result.outcome, code: "" });
    metrics.decisionSeconds.observe({ outcome: result.outcome }, (performance.now() - started) / 1000);
    return result;
  } catch (error) {
    metrics.decisions.inc({
      outcome: "refused",
      code: isRuntimeError(error) ? error.code : "internal_error",
    });
    throw error;
  }
}
