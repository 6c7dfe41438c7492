import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createToolCallBatch, type ToolCallSketch, transferTool } from "../testing";
import { createToolRegistry } from "../tools/tool-registry";
import { DEFAULT_LIMITS, type Plan } from "../types";
import { planBatch } from "./plan-batch";

const registry = createToolRegistry({
  tools: [
    {
      name: "look_at_image",
      description: "vision",
      resourceClass: "vision",
      effect: "READ",
      approval: "never",
      parameters: { type: "object" },
    },
    {
      name: "gated_read",
      description: "a pure read that always needs approval",
      resourceClass: "pure_read",
      effect: "READ",
      approval: "always",
      parameters: { type: "object" },
    },
  ],
  definitions: [transferTool],
});

const pathArbitrary = fc.constantFrom("a.txt", "notes/todo.md", "b.md");
const sketchArbitrary: fc.Arbitrary<ToolCallSketch> = fc.oneof(
  // Pure reads are weighted up so oversized all-read batches occur often.
  { weight: 6, arbitrary: pathArbitrary.map((path) => ({ name: "read_file", arguments: { path } })) },
  { weight: 2, arbitrary: fc.constant({ name: "list_files" }) },
  { weight: 1, arbitrary: fc.constant({ name: "look_at_image" }) },
  { weight: 1, arbitrary: fc.constant({ name: "gated_read" }) },
  { weight: 1, arbitrary: fc.constant({ name: "memory_set", arguments: { key: "k", value: 1 } }) },
  {
    weight: 1,
    arbitrary: pathArbitrary.map((path) => ({ name: "write_file", arguments: { path, content: "x" } })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 0, max: 200 })
      .map((amount) => ({ name: "transfer", arguments: { amount } })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { name: "reply", arguments: { message: "hi" } },
      { name: "finish", arguments: { summary: "s" } },
    ),
  },
  { weight: 1, arbitrary: fc.constant({ name: "frobnicate" }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("", "{", "[]", "null", '{"path":')
      .map((raw) => ({ name: "read_file", arguments: raw })),
  },
  { weight: 1, arbitrary: fc.constant({ name: "read_file", arguments: { file: "a.txt" } }) },
);

const scenarioArbitrary = fc.record({
  sketches: fc.array(sketchArbitrary, { maxLength: 24 }),
  cap: fc.integer({ min: 1, max: 10 }),
  maxBatchPayloadBytes: fc.oneof(
    fc.constant(DEFAULT_LIMITS.maxBatchPayloadBytes),
    fc.integer({ min: 40, max: 2000 }),
  ),
});

function isValidPureRead(sketch: ToolCallSketch): boolean {
  return (
    (sketch.name === "read_file" && typeof sketch.arguments === "object" && "path" in sketch.arguments) ||
    sketch.name === "list_files"
  );
}

function listWaveIndexes(plan: Plan): number[] {
  return plan.segments.flatMap((segment) => (segment.kind === "wave" ? segment.batchIndexes : []));
}

function listSegmentIndexes(plan: Plan): number[] {
  return plan.segments.flatMap((segment) =>
    segment.kind === "wave" ? segment.batchIndexes : [segment.batchIndex],
  );
}

function planScenario(scenario: { sketches: ToolCallSketch[]; cap: number; maxBatchPayloadBytes: number }) {
  const batch = createToolCallBatch(scenario.sketches);
  const limits = {
    ...DEFAULT_LIMITS,
    maxParallelToolCalls: scenario.cap,
    maxBatchPayloadBytes: scenario.maxBatchPayloadBytes,
  };
  return { batch, ...planBatch(batch, registry, limits) };
}

describe("planBatch invariants (property-based)", () => {
  it("never puts more than the cap in a wave, nor an empty wave", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        for (const segment of planScenario(scenario).plan.segments) {
          if (segment.kind === "wave") {
            expect(segment.batchIndexes.length).toBeGreaterThan(0);
            expect(segment.batchIndexes.length).toBeLessThanOrEqual(scenario.cap);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("accounts for every call of an execute plan exactly once, segments in batch order", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { batch, plan } = planScenario(scenario);
        fc.pre(plan.kind === "execute");
        const segmentIndexes = listSegmentIndexes(plan);
        const problemIndexes = plan.problems.map((problem) => problem.batchIndex);
        expect(problemIndexes).not.toContain(null);
        expect(
          [...segmentIndexes, ...problemIndexes].sort((left, right) => Number(left) - Number(right)),
        ).toEqual(batch.map((call) => call.batchIndex));
        expect(segmentIndexes).toEqual([...segmentIndexes].sort((left, right) => left - right));
      }),
      { numRuns: 500 },
    );
  });

  it("dispatches only calls that preflight cleanly", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { calls, plan } = planScenario(scenario);
        for (const index of listSegmentIndexes(plan)) {
          expect(calls[index]?.problem).toBeNull();
        }
      }),
      { numRuns: 300 },
    );
  });

  it("gives a repair plan no segments and at least one problem", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { plan } = planScenario(scenario);
        fc.pre(plan.kind === "repair");
        expect(plan.segments).toEqual([]);
        expect(plan.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it("executes an oversized batch only when every call is a valid, ungated pure read", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { calls, plan } = planScenario(scenario);
        if (calls.length <= scenario.cap || plan.kind === "repair") {
          return;
        }
        expect(plan.problems).toEqual([]);
        for (const call of calls) {
          expect(call).toMatchObject({ problem: null, resourceClass: "pure_read", isGated: false });
        }
      }),
      { numRuns: 500 },
    );
  });

  it("splits an oversized all-read batch into ceil(n / cap) waves in order", () => {
    const readsArbitrary = fc.array(sketchArbitrary.filter(isValidPureRead), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(readsArbitrary, fc.integer({ min: 1, max: 10 }), (sketches, cap) => {
        fc.pre(sketches.length > cap);
        const { plan } = planScenario({
          sketches,
          cap,
          maxBatchPayloadBytes: DEFAULT_LIMITS.maxBatchPayloadBytes,
        });
        expect(plan.kind).toBe("execute");
        expect(plan.segments).toHaveLength(Math.ceil(sketches.length / cap));
        expect(listSegmentIndexes(plan)).toEqual(sketches.map((_, index) => index));
      }),
      { numRuns: 200 },
    );
  });

  it("keeps a gated call alone in a barrier, never in a wave, and every barrier gated", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { calls, plan } = planScenario(scenario);
        const waveIndexes = new Set(listWaveIndexes(plan));
        for (const call of calls.filter((candidate) => candidate.isGated)) {
          expect(waveIndexes.has(call.batchIndex)).toBe(false);
        }
        for (const segment of plan.segments) {
          if (segment.kind === "barrier") {
            expect(calls[segment.batchIndex]?.isGated).toBe(true);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("runs stateful and terminal calls alone in their wave, and a terminal call only alone in its batch", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { calls, plan } = planScenario(scenario);
        for (const segment of plan.segments) {
          if (segment.kind !== "wave" || segment.batchIndexes.length === 1) {
            continue;
          }
          for (const index of segment.batchIndexes) {
            expect(["pure_read", "vision"]).toContain(calls[index]?.resourceClass);
          }
        }
        if (listSegmentIndexes(plan).some((index) => calls[index]?.resourceClass === "terminal")) {
          expect(calls).toHaveLength(1);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("is deterministic", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        expect(planScenario(scenario)).toEqual(planScenario(scenario));
      }),
      { numRuns: 100 },
    );
  });
});
