import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import { parseScenarioJson } from "../scenario/parse-scenario";
import { type MemoryHarness, openMemoryHarness } from "../testing/scenario-harness";
import { buildRunTimeline } from "./run-timeline";
import { buildRunTrace, type OtlpSpan } from "./run-trace";

const shared = (fileName: string) =>
  parseScenarioJson(readFileSync(path.join(process.cwd(), "lib", "scenarios", fileName), "utf8"));

let harness: MemoryHarness;
beforeAll(() => {
  harness = openMemoryHarness();
});

async function traceOf(fileName: string) {
  const report = await runScenarioHeadless(harness.host, shared(fileName));
  const trace = buildRunTrace(report.runId, "r", buildRunTimeline(await harness.events(report.runId)));
  if (!trace) throw new Error("no trace");
  return { runId: report.runId, trace, spans: trace.resourceSpans[0]?.scopeSpans[0]?.spans ?? [] };
}

describe("a run as an OpenTelemetry trace file", () => {
  it("is one trace whose id is the run id, every span inside its parent, waves holding their calls", async () => {
    const { runId, spans } = await traceOf("fourteen-reads-cap-eight.json");
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([runId.replaceAll("-", "")]));
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    expect(byId.size).toBe(spans.length);
    const roots = spans.filter((span) => !span.parentSpanId);
    expect(roots.map((span) => span.name)).toEqual(["run"]);
    for (const span of spans) {
      if (!span.parentSpanId) continue;
      const parent = byId.get(span.parentSpanId) as OtlpSpan;
      expect(parent).toBeDefined();
      expect(BigInt(span.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(parent.startTimeUnixNano));
      expect(BigInt(span.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(parent.endTimeUnixNano));
    }
    const waves = spans.filter((span) => span.name === "wave");
    const callsPerWave = waves.map(
      (wave) => spans.filter((span) => span.parentSpanId === wave.spanId).length,
    );
    expect(callsPerWave.slice(0, 2)).toEqual([8, 6]);
    expect(spans.filter((span) => span.name === "tool_call").every((span) => span.status.code === 1)).toBe(
      true,
    );
  });

  it("shows the wait for a person as a span and the decision as an event, with no argument or reason in the file", async () => {
    const { trace, spans } = await traceOf("denied-write-invalidates-rest.json");
    expect(spans.some((span) => span.name === "approval_wait")).toBe(true);
    const run = spans.find((span) => span.name === "run");
    expect(run?.events.map((event) => event.name)).toContain("decision");
    const scenario = shared("denied-write-invalidates-rest.json");
    const text = JSON.stringify(trace);
    for (const turn of scenario.model.kind === "scripted" ? scenario.model.turns : []) {
      for (const call of turn.calls) {
        const args = (
          typeof call.arguments === "string" ? JSON.parse(call.arguments) : call.arguments
        ) as Record<string, unknown>;
        for (const value of Object.values(args))
          if (typeof value === "string" && value.length > 3) expect(text).not.toContain(value);
      }
    }
    for (const decision of scenario.decisions)
      if (decision.reason) expect(text).not.toContain(decision.reason);
  });
});
