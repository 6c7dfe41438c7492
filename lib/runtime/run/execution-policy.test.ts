import { describe, expect, it } from "vitest";
import { SCENARIO_PRESETS } from "@/lib/scenarios/scenario-presets";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import { createMemoryRunHost } from "../testing/memory-run-host";
import { buildScenario, withToolDelaysAtMost } from "../testing/scenario-harness";

async function runUnder(presetId: string, executionPolicy: "barriers" | "legacy") {
  const preset = SCENARIO_PRESETS.find((candidate) => candidate.id === presetId);
  if (!preset) throw new Error(`no preset ${presetId}`);
  return runScenarioHeadless(
    createMemoryRunHost(),
    // What is counted never depends on how long a tool takes; the slow preset's 1.5 s calls would make
    // this file take 10 s.
    buildScenario(
      withToolDelaysAtMost({ ...(preset.scenario as Record<string, unknown>), executionPolicy } as never, 20),
    ),
  );
}

// [preset, completions under barriers, under legacy, legacy's wasted completions]
const EXPECTED: Array<[string, number, number, number]> = [
  // The headlines: an oversized read batch, and a gated write with its read-back, each cost one more.
  ["fourteen-reads-cap-eight", 2, 3, 1],
  ["write-then-read-back", 2, 3, 1],
  ["two-gates-in-one-batch", 2, 4, 2],
  ["rule-1a-oversized-reads-in-waves", 2, 3, 1],
  ["rule-1b-oversized-mixed-batch-repaired", 3, 4, 1],
  ["rule-4-approval-barriers", 2, 4, 2],
  ["slow-waves-for-live-view", 3, 4, 1],
  // Nothing to save where the batch already fits and has no gate before other calls.
  ["denied-write-invalidates-rest", 3, 3, 0],
  ["rule-2-oversized-payload-repaired", 3, 3, 0],
  ["rule-3-terminal-with-siblings-repaired", 2, 2, 0],
  ["rule-5-terminal-alone", 3, 3, 0],
  ["rule-6-plain-batch-with-bad-call", 2, 2, 0],
];

describe("the legacy policy, side by side with barriers", () => {
  it.each(EXPECTED)(
    "%s: %i completions under barriers, %i under legacy (%i wasted)",
    async (id, barriers, legacy, wasted) => {
      const [underBarriers, underLegacy] = await Promise.all([
        runUnder(id, "barriers"),
        runUnder(id, "legacy"),
      ]);
      expect(underBarriers.metrics).toMatchObject({ completions: barriers, wastedCompletions: 0 });
      expect(underLegacy.metrics).toMatchObject({ completions: legacy, wastedCompletions: wasted });
      expect(underBarriers.status).toBe("COMPLETED");
      expect(underLegacy.status).toBe("COMPLETED");
    },
  );

  it("refuses an oversized batch whole, then runs what the model sends again within the cap", async () => {
    const report = await runUnder("fourteen-reads-cap-eight", "legacy");
    const [refused, resent] = report.steps;
    expect(refused?.plan).toMatchObject({ kind: "repair", problems: [{ code: "legacy_over_cap" }] });
    expect(resent?.calls).toHaveLength(8);
    expect(resent?.completion?.synthesized).toBe(true);
    expect(resent?.calls.every((call) => call.status === "ok")).toBe(true);
  });

  it("cuts a batch after its gate, and the model sends the rest again after the decision, with the same payloads", async () => {
    const report = await runUnder("write-then-read-back", "legacy");
    const [gated, resent] = report.steps;
    expect(gated?.calls.map((call) => [call.name, call.status])).toEqual([
      ["write_file", "ok"],
      ["read_file", "not_dispatched"],
    ]);
    expect(gated?.calls[1]?.error?.code).toBe("legacy_cut_after_gate");
    expect(resent?.calls.map((call) => [call.name, call.arguments, call.status])).toEqual([
      ["read_file", gated?.calls[1]?.arguments, "ok"],
    ]);
  });

  it("asks for nothing again after a denied gate: the model is told, and the script goes on", async () => {
    const report = await runUnder("denied-write-invalidates-rest", "legacy");
    expect(report.metrics.wastedCompletions).toBe(0);
    expect(report.steps[0]?.calls.some((call) => call.status === "denied")).toBe(true);
  });
});
