import { context, type SpanContext, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildScenario, type MemoryHarness, openMemoryHarness } from "@/lib/runtime/testing/scenario-harness";

// The SDK's own in-memory exporter and context manager, as a server registers them (instrumentation.ts).
const exporter = new InMemorySpanExporter();
let harness: MemoryHarness;
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
  );
  harness = openMemoryHarness();
});
beforeEach(() => exporter.reset());
afterAll(() => {
  harness?.close();
  trace.disable();
  context.disable();
});

const SECRET_ARGUMENT = "the-content-nobody-may-trace";
const SECRET_REASON = "a reason nobody may trace";

/** Two reads, then a gated write, then finish: a run that waits once for a person. */
const scenario = buildScenario({
  name: "traced",
  workspace: { "a.txt": "A", "b.txt": "B" },
  model: {
    kind: "scripted",
    turns: [
      {
        calls: [
          { name: "read_file", arguments: { path: "a.txt" } },
          { name: "read_file", arguments: { path: "b.txt" } },
          { name: "write_file", arguments: { path: "c.txt", content: SECRET_ARGUMENT } },
        ],
      },
      { calls: [{ name: "finish", arguments: { summary: "done" } }] },
    ],
  },
});

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const spanIdOf = (span: ReadableSpan) => span.spanContext().spanId;

describe("a run's trace", () => {
  it("has a span per run stretch, planning, completion, step, wave and tool call, with the attributes operators need", async () => {
    const { runId, settled } = await harness.host.startRun(scenario);
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const turnDigest = (await harness.host.loadView(runId))?.pending?.turnDigest ?? "";
    expect((await harness.host.decide(runId, { approve: true, turnDigest, actor: "ops" })).status).toBe(
      "COMPLETED",
    );
    const spans = exporter.getFinishedSpans();
    const named = (name: string) => spans.filter((span) => span.name === name);

    // One trace, whose id is the run id, across both stretches and the decision between them.
    const traceId = runId.replaceAll("-", "");
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([traceId]));
    const runSpans = named("run");
    expect(runSpans).toHaveLength(2);
    const [decision] = named("decision");
    expect(decision?.attributes).toMatchObject({ "tool_playground.decision.outcome": "executed" });
    // The wait for a person is the gap: the first stretch ended before the decision, the second began after.
    const [first, second] = [...runSpans].sort(
      (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
    );
    expect(first?.attributes["tool_playground.run.status"]).toBe("WAITING_FOR_APPROVAL");
    expect(second?.attributes["tool_playground.run.status"]).toBe("COMPLETED");
    const rootParent = (first?.parentSpanContext as SpanContext | undefined)?.spanId;
    expect(runSpans.every((span) => parentOf(span) === rootParent)).toBe(true);
    expect(parentOf(decision as ReadableSpan)).toBe(rootParent);

    const [planning] = named("planning");
    expect(parentOf(planning as ReadableSpan)).toBe(spanIdOf(first as ReadableSpan));
    expect(planning?.attributes).toMatchObject({
      "tool_playground.plan.batch_size": 3,
      "tool_playground.plan.cap": 8,
      "tool_playground.plan.kind": "execute",
      "tool_playground.plan.waves": 1,
      "tool_playground.plan.barriers": 1,
    });
    const completions = named("chat scripted");
    expect(completions).toHaveLength(2);
    expect(completions[0]?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "scripted",
    });
    expect(parentOf(completions[0] as ReadableSpan)).toBe(spanIdOf(planning as ReadableSpan));

    const [wave] = named("wave");
    expect(wave?.attributes).toMatchObject({ "tool_playground.wave.size": 2 });
    expect(parentOf(wave as ReadableSpan)).toBe(spanIdOf(named("step")[0] as ReadableSpan));
    const calls = named("tool_call");
    const reads = calls.filter((span) => span.attributes["tool_playground.tool.name"] === "read_file");
    expect(reads).toHaveLength(2);
    expect(reads.every((span) => parentOf(span) === spanIdOf(wave as ReadableSpan))).toBe(true);
    expect(reads[0]?.attributes).toMatchObject({
      "tool_playground.tool.class": "pure_read",
      "tool_playground.tool.effect": "READ",
      "tool_playground.call.status": "ok",
    });
    const [write] = calls.filter((span) => span.attributes["tool_playground.tool.name"] === "write_file");
    expect(write?.attributes).toMatchObject({
      "tool_playground.tool.class": "write",
      "tool_playground.call.status": "ok",
    });
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain(SECRET_ARGUMENT);
  });

  it("records a refused decision with its code, and never a denial's reason", async () => {
    const { runId, settled } = await harness.host.startRun(scenario);
    await settled;
    await expect(
      harness.host.decide(runId, { approve: true, turnDigest: "0".repeat(64), actor: "ops" }),
    ).rejects.toThrow();
    const turnDigest = (await harness.host.loadView(runId))?.pending?.turnDigest ?? "";
    await harness.host.decide(runId, { approve: false, turnDigest, actor: "ops", reason: SECRET_REASON });
    const decisions = exporter.getFinishedSpans().filter((span) => span.name === "decision");
    expect(
      decisions.map(
        (span) => span.attributes["error.type"] ?? span.attributes["tool_playground.decision.outcome"],
      ),
    ).toEqual(["stale_turn", "denied"]);
    const everything = JSON.stringify(
      exporter.getFinishedSpans().map((span) => [span.attributes, span.status, span.events]),
    );
    expect(everything).not.toContain(SECRET_REASON);
    expect(everything).not.toContain(SECRET_ARGUMENT);
  });
});
