import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import { parseScenarioJson } from "../scenario/parse-scenario";
import { slowReadTool } from "../testing/scenario-fixtures";
import { buildScenario, type MemoryHarness, openMemoryHarness } from "../testing/scenario-harness";
import { buildRunTimeline, type RunTimeline, type TimelineLogEntry, timelineScale } from "./run-timeline";

const shared = (fileName: string) =>
  parseScenarioJson(readFileSync(path.join(process.cwd(), "lib", "scenarios", fileName), "utf8"));

let harness: MemoryHarness;
beforeAll(() => {
  harness = openMemoryHarness();
});

async function timelineOf(runId: string, now?: number): Promise<RunTimeline> {
  return buildRunTimeline(await harness.events(runId), now);
}

describe("a run's timeline, from its event log", () => {
  it("the fourteen reads at a cap of eight are two waves of 8 and 6, one lane per call", async () => {
    const report = await runScenarioHeadless(harness.host, shared("fourteen-reads-cap-eight.json"));
    const timeline = await timelineOf(report.runId);
    const firstStep = timeline.groups.filter((group) => group.stepIndex === 0);
    expect(firstStep.map((group) => [group.kind, group.bars.length])).toEqual([
      ["wave", 8],
      ["wave", 6],
    ]);
    expect(firstStep[1]?.bars.map((bar) => bar.lane)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(firstStep.flatMap((group) => group.bars).every((bar) => bar.outcome === "ok" && !bar.open)).toBe(
      true,
    );
    expect(timeline.steps[0]?.lanes).toBe(8);
    expect(timeline.isLive).toBe(false);
    expect(timeline.markers.at(-1)).toMatchObject({ kind: "finished", label: "completed" });
  });

  it("a barrier waits for a person: the gap ends at the decision, then the gate runs on its own", async () => {
    const report = await runScenarioHeadless(harness.host, shared("write-then-read-back.json"));
    const timeline = await timelineOf(report.runId);
    expect(timeline.waits).toEqual([
      expect.objectContaining({ stepIndex: 0, open: false, endedBy: "decision" }),
    ]);
    expect(timeline.markers.find((marker) => marker.kind === "decision")?.label).toBe("operator approved");
    const step = timeline.groups.filter((group) => group.stepIndex === 0);
    expect(step.map((group) => group.kind)).toEqual(["barrier", "wave"]);
    expect(step[0]?.bars[0]).toMatchObject({ name: "write_file", outcome: "ok" });
    // The gate ran after the wait ended, never before.
    expect(step[0]?.bars[0]?.start).toBeGreaterThanOrEqual(
      timeline.waits[0]?.end ?? Number.POSITIVE_INFINITY,
    );
  });

  it("a waiting run's gap is open and grows with the clock", async () => {
    const waiting = await runScenarioHeadless(harness.host, {
      ...shared("write-then-read-back.json"),
      decisions: [],
    });
    const events = await harness.events(waiting.runId);
    const origin = Date.parse(events[0]?.at ?? "");
    const soon = buildRunTimeline(events, origin + 60_000);
    const later = buildRunTimeline(events, origin + 120_000);
    expect(soon.isLive).toBe(true);
    expect(soon.waits[0]).toMatchObject({ open: true, endedBy: null, end: 60_000 });
    expect(later.waits[0]?.end).toBe(120_000);
    expect(later.duration).toBe(120_000);
  });

  it("a denial cuts off the calls after the barrier: they have no bar, only the moment they were cut", async () => {
    const report = await runScenarioHeadless(harness.host, shared("denied-write-invalidates-rest.json"));
    const timeline = await timelineOf(report.runId);
    expect(timeline.cut.length).toBeGreaterThan(0);
    const barred = new Set(
      timeline.groups.flatMap((group) => group.bars.map((bar) => `${bar.stepIndex}:${bar.batchIndex}`)),
    );
    for (const call of timeline.cut) expect(barred.has(`${call.stepIndex}:${call.batchIndex}`)).toBe(false);
    expect(timeline.markers.find((marker) => marker.kind === "decision")?.label).toMatch(/denied$/);
  });

  it("a crash: bars the lost worker left open end where another instance took over", () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 11, 1) + ms).toISOString();
    const log = [
      entry(1, "run_started", at(0), { name: "r", limits: null, startedBy: null, mcpServers: [] }),
      entry(2, "step_planned", at(100), {
        stepIndex: 0,
        modelCalls: 1,
        completion: {
          latencyMs: 80,
          usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
          preamble: null,
          synthesized: false,
        },
        text: null,
        plan: { waves: [] },
        metrics: {},
        calls: [{ batchIndex: 0, id: "a", name: "scan" }],
      }),
      entry(3, "wave_started", at(110), { stepIndex: 0, batchIndexes: [0] }),
      entry(4, "call_started", at(120), { stepIndex: 0, batchIndex: 0 }),
      entry(5, "run_recovered", at(5_000), {
        by: "instance-b",
        from: { stepIndex: 0, segment: 0 },
        resumption: "step",
        reissuedCompletion: false,
      }),
      entry(6, "wave_started", at(5_010), { stepIndex: 0, batchIndexes: [0] }),
      entry(7, "call_started", at(5_020), { stepIndex: 0, batchIndex: 0 }),
      entry(8, "call_settled", at(5_500), {
        stepIndex: 0,
        batchIndex: 0,
        status: "ok",
        result: null,
        error: null,
      }),
    ];
    const timeline = buildRunTimeline(log, Date.UTC(2026, 11, 1) + 6_000);
    const bars = timeline.groups.flatMap((group) => group.bars);
    expect(bars.map((bar) => [bar.start, bar.end, bar.outcome])).toEqual([
      [120, 5_000, "interrupted"],
      [5_020, 5_500, "ok"],
    ]);
    expect(timeline.completions).toEqual([
      { stepIndex: 0, start: 20, end: 100, totalTokens: 3, synthesized: false },
    ]);
    expect(timeline.markers).toEqual([
      { kind: "recovered", at: 5_000, stepIndex: 0, label: "recovered by instance-b" },
    ]);
  });

  it("an empty log is an empty, live timeline", () => {
    expect(buildRunTimeline([])).toMatchObject({ origin: null, duration: 0, isLive: true, groups: [] });
  });
});

describe("the timeline's rules hold for any batch of reads and gated writes", () => {
  const batch = fc.record({
    cap: fc.integer({ min: 1, max: 6 }),
    calls: fc.array(fc.constantFrom("read", "write"), { minLength: 1, maxLength: 12 }),
    approve: fc.array(fc.boolean(), { maxLength: 6 }),
  });

  it("bars never overlap in a lane, a barrier starts after every earlier call settled, cut calls have no bar after the cut", async () => {
    await fc.assert(
      fc.asyncProperty(batch, async ({ cap, calls, approve }) => {
        const scenario = buildScenario({
          name: "property",
          limits: { maxParallelToolCalls: cap },
          // Reads that take a few milliseconds, so calls of one wave truly overlap in time.
          tools: [slowReadTool(3, "scan")],
          model: {
            kind: "scripted",
            turns: [
              {
                calls: calls.map((kind, index) =>
                  kind === "read"
                    ? { name: "scan", arguments: {} }
                    : { name: "write_file", arguments: { path: `out${index}.txt`, content: "x" } },
                ),
              },
              { calls: [{ name: "finish", arguments: { summary: "done" } }] },
            ],
          },
          decisions: approve.map((yes) => ({ approve: yes, actor: "ada", ...(yes ? {} : { reason: "no" }) })),
        });
        const report = await runScenarioHeadless(harness.host, scenario);
        const timeline = await timelineOf(report.runId);
        const bars = timeline.groups.flatMap((group) => group.bars);

        for (const step of timeline.steps) {
          const rows = new Map<number, typeof bars>();
          for (const bar of bars.filter((b) => b.stepIndex === step.stepIndex)) {
            rows.set(bar.lane, [...(rows.get(bar.lane) ?? []), bar]);
          }
          for (const lane of rows.values()) {
            const sorted = [...lane].sort((a, b) => a.start - b.start);
            for (const [i, bar] of sorted.slice(1).entries()) {
              expect(bar.start).toBeGreaterThanOrEqual(sorted[i]?.end ?? 0);
            }
          }
        }
        for (const group of timeline.groups.filter((g) => g.kind === "barrier")) {
          const gate = group.bars[0];
          if (!gate) continue;
          for (const earlier of bars.filter(
            (b) => b.stepIndex === gate.stepIndex && b.batchIndex < gate.batchIndex,
          )) {
            expect(gate.start).toBeGreaterThanOrEqual(earlier.end);
          }
        }
        for (const call of timeline.cut) {
          const later = bars.filter(
            (b) => b.stepIndex === call.stepIndex && b.batchIndex === call.batchIndex && b.start >= call.at,
          );
          expect(later).toEqual([]);
        }
        // Every call the report says ran has exactly one bar, ending in its outcome.
        const ran = report.steps.flatMap((step) =>
          step.calls
            .filter((call) => call.status === "ok" || call.status === "error")
            .map((call) => `${step.index}:${call.batchIndex}`),
        );
        expect(bars.map((bar) => `${bar.stepIndex}:${bar.batchIndex}`).sort()).toEqual(ran.sort());
      }),
      { numRuns: 40 },
    );
  });
});

function entry(seq: number, type: string, at: string, payload: unknown): TimelineLogEntry {
  return { seq, type, at, payload } as TimelineLogEntry;
}

describe("the timeline's time axis", () => {
  const waitsOf = (spans: Array<[number, number]>) =>
    spans.map(([start, end]) => ({
      stepIndex: 0,
      turnDigest: "d",
      start,
      end,
      open: false,
      endedBy: "decision" as const,
    }));

  it("draws a long wait no wider than its cap and the working time across the rest", () => {
    const x = timelineScale(
      { duration: 1_000_100, waits: waitsOf([[50, 1_000_050]]) },
      { width: 1000, maxWaitPx: 100 },
    );
    expect(x(0)).toBe(0);
    expect(x(50)).toBeCloseTo(450);
    expect(x(1_000_050)).toBeCloseTo(550);
    expect(x(1_000_100)).toBeCloseTo(1000);
  });

  it("is monotonic and spans the width for any waits", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: 5_000 })), {
          maxLength: 5,
        }),
        fc.integer({ min: 1, max: 20_000 }),
        (raw, tail) => {
          // Waits never overlap: lay them out one after another with working time between.
          let cursor = 0;
          const spans: Array<[number, number]> = raw.map(([gap, length]) => {
            const start = cursor + gap;
            cursor = start + length;
            return [start, cursor];
          });
          const duration = cursor + tail;
          const x = timelineScale({ duration, waits: waitsOf(spans) }, { width: 800, maxWaitPx: 60 });
          let previous = -1;
          for (let t = 0; t <= duration; t += Math.max(1, Math.floor(duration / 200))) {
            expect(x(t)).toBeGreaterThanOrEqual(previous - 1e-9);
            previous = x(t);
          }
          expect(x(duration)).toBeCloseTo(800);
          for (const [start, end] of spans) expect(x(end) - x(start)).toBeLessThanOrEqual(60 + 1e-9);
        },
      ),
    );
  });
});
