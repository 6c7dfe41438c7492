import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCENARIO_PRESETS } from "@/lib/scenarios/scenario-presets";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import { validateScenario } from "../scenario/parse-scenario";
import {
  buildScenario,
  type MemoryHarness,
  openMemoryHarness,
  withToolDelaysAtMost,
} from "../testing/scenario-harness";
import type { RunReport } from "../view/run-report";

let harness: MemoryHarness;
beforeAll(async () => {
  harness = openMemoryHarness();
});
afterAll(() => harness?.close());

type Step = RunReport["steps"][number];
interface Problem {
  batchIndex: number | null;
  code: string;
}

const stepOf = (report: RunReport, stepIndex: number): Step => {
  const step = report.steps[stepIndex];
  if (!step) throw new Error(`run has no step ${stepIndex}`);
  return step;
};
const statuses = (report: RunReport, stepIndex: number) =>
  stepOf(report, stepIndex).calls.map((call) => call.status);
const problemsOf = (step: Step): Problem[] =>
  ((step.plan as { problems?: Problem[] }).problems ?? []).map(({ batchIndex, code }) => ({
    batchIndex,
    code,
  }));

/** Each call of `later` starts only after every call of `earlier` has settled. */
function expectStartsAfter(step: Step, earlier: number[], later: number[]) {
  const byIndex = new Map(step.calls.map((call) => [call.batchIndex, call]));
  const lastSettle = Math.max(...earlier.map((index) => byIndex.get(index)?.settleSeq as number));
  for (const index of later) {
    expect(byIndex.get(index)?.startSeq).toBeGreaterThan(lastSettle);
  }
}

/** A repair step: nothing dispatched, the given problems, the given reason. */
function expectRepair(step: Step, problems: Problem[], repairReason: string) {
  expect(step.plan).toMatchObject({ kind: "repair", segments: [] });
  expect(problemsOf(step)).toEqual(problems);
  expect(step.calls.every((call) => call.status === "not_dispatched" && call.startSeq === null)).toBe(true);
  expect(step.metrics).toMatchObject({ waveCount: 0, completedWaves: 0, repairReason });
}

/** What each rule preset must keep demonstrating; the run already ended COMPLETED. */
const RULE_EXPECTATIONS: Record<string, (report: RunReport) => void> = {
  "rule-1a-oversized-reads-in-waves": (report) => {
    expect(report.modelCalls).toBe(2);
    const step = stepOf(report, 0);
    expect(step.plan).toEqual({
      kind: "execute",
      segments: [
        { kind: "wave", batchIndexes: [0, 1, 2, 3] },
        { kind: "wave", batchIndexes: [4, 5, 6, 7] },
        { kind: "wave", batchIndexes: [8, 9] },
      ],
      problems: [],
    });
    expect(step.metrics).toMatchObject({
      originalSize: 10,
      cap: 4,
      waveCount: 3,
      waveBoundaries: [
        [0, 3],
        [4, 7],
        [8, 9],
      ],
      completedWaves: 3,
      approvalBarriers: 0,
      repairReason: null,
    });
    expect(statuses(report, 0)).toEqual(Array(10).fill("ok"));
    expectStartsAfter(step, [0, 1, 2, 3], [4, 5, 6, 7]);
    expectStartsAfter(step, [4, 5, 6, 7], [8, 9]);
    expect(stepOf(report, 1).calls).toMatchObject([{ name: "finish", status: "ok" }]);
  },

  "rule-1b-oversized-mixed-batch-repaired": (report) => {
    expect(report.modelCalls).toBe(3);
    const repair = stepOf(report, 0);
    expectRepair(
      repair,
      [
        { batchIndex: null, code: "too_many_calls" },
        { batchIndex: 4, code: "not_pure_read" },
        { batchIndex: 5, code: "approval_gated" },
        { batchIndex: 5, code: "not_pure_read" },
      ],
      "too_many_calls",
    );
    expect(repair.metrics).toMatchObject({ originalSize: 6, cap: 4 });
    const repaired = stepOf(report, 1);
    expect(repaired.plan).toEqual({
      kind: "execute",
      segments: [
        { kind: "wave", batchIndexes: [0, 1] },
        { kind: "wave", batchIndexes: [2] },
        { kind: "barrier", batchIndex: 3 },
      ],
      problems: [],
    });
    expect(statuses(report, 1)).toEqual(["ok", "ok", "ok", "ok"]);
    expect(repaired.metrics).toMatchObject({ originalSize: 4, approvalBarriers: 1, repairReason: null });
    expect(report.decisions).toMatchObject([{ approve: true, outcome: "executed" }]);
  },

  "rule-2-oversized-payload-repaired": (report) => {
    expect(report.modelCalls).toBe(3);
    expectRepair(stepOf(report, 0), [{ batchIndex: null, code: "payload_too_large" }], "payload_too_large");
    expect(stepOf(report, 0).metrics).toMatchObject({ originalSize: 3, cap: 8 });
    // The same shape under the limit runs; the memory write waits for the reads.
    expect(stepOf(report, 1).plan).toEqual({
      kind: "execute",
      segments: [
        { kind: "wave", batchIndexes: [0, 1] },
        { kind: "wave", batchIndexes: [2] },
      ],
      problems: [],
    });
    expect(statuses(report, 1)).toEqual(["ok", "ok", "ok"]);
  },

  "rule-3-terminal-with-siblings-repaired": (report) => {
    expect(report.modelCalls).toBe(2);
    expectRepair(
      stepOf(report, 0),
      [{ batchIndex: 1, code: "terminal_with_siblings" }],
      "terminal_with_siblings",
    );
    expect(stepOf(report, 1).plan).toEqual({
      kind: "execute",
      segments: [{ kind: "wave", batchIndexes: [0] }],
      problems: [],
    });
    expect(stepOf(report, 1).calls).toMatchObject([{ name: "finish", status: "ok" }]);
  },

  "rule-4-approval-barriers": (report) => {
    expect(report.modelCalls).toBe(2);
    const step = stepOf(report, 0);
    expect(step.plan).toEqual({
      kind: "execute",
      segments: [
        { kind: "wave", batchIndexes: [0, 1] },
        { kind: "barrier", batchIndex: 2 },
        { kind: "wave", batchIndexes: [3, 4] },
        { kind: "barrier", batchIndex: 5 },
        { kind: "wave", batchIndexes: [6, 7] },
      ],
      problems: [],
    });
    expect(step.metrics).toMatchObject({
      originalSize: 8,
      waveCount: 3,
      completedWaves: 3,
      approvalBarriers: 2,
      retainedCount: 5,
      invalidatedCount: 0,
      repairReason: null,
    });
    expect(statuses(report, 0)).toEqual(Array(8).fill("ok"));
    expectStartsAfter(step, [0, 1], [2]);
    expectStartsAfter(step, [2], [3, 4]);
    expectStartsAfter(step, [3, 4], [5]);
    expectStartsAfter(step, [5], [6, 7]);
    // The read retained behind the write sees what was written.
    expect(step.calls[3]?.result).toEqual({ path: "config/app.json", content: '{"debug": true}\n' });
    expect(report.decisions.map((decision) => [decision.approve, decision.outcome])).toEqual([
      [true, "executed"],
      [true, "executed"],
    ]);
    expect(report.decisions[0]?.turnDigest).not.toBe(report.decisions[1]?.turnDigest);
  },

  "rule-5-terminal-alone": (report) => {
    expect(report.modelCalls).toBe(3);
    expect(report.steps.map((step) => step.plan)).toEqual(
      Array(3).fill({ kind: "execute", segments: [{ kind: "wave", batchIndexes: [0] }], problems: [] }),
    );
    expect(stepOf(report, 0).calls).toMatchObject([
      { name: "reply", status: "ok", result: { message: "Let me look at your to-do list." } },
    ]);
    // The run went on after the reply, and only finish ended it.
    expect(stepOf(report, 1).calls).toMatchObject([{ name: "read_file", status: "ok" }]);
    expect(stepOf(report, 2).calls).toMatchObject([{ name: "finish", status: "ok" }]);
  },

  "rule-6-plain-batch-with-bad-call": (report) => {
    expect(report.modelCalls).toBe(2);
    const step = stepOf(report, 0);
    expect(step.plan).toMatchObject({
      kind: "execute",
      segments: [
        { kind: "wave", batchIndexes: [0, 1] },
        { kind: "wave", batchIndexes: [3] },
        { kind: "wave", batchIndexes: [5, 6] },
      ],
    });
    expect(problemsOf(step)).toEqual([
      { batchIndex: 2, code: "unknown_tool" },
      { batchIndex: 4, code: "malformed_arguments" },
    ]);
    expect(statuses(report, 0)).toEqual(["ok", "ok", "not_dispatched", "ok", "not_dispatched", "ok", "ok"]);
    expect(step.calls[2]).toMatchObject({ startSeq: null, error: { code: "unknown_tool" } });
    expect(step.calls[4]).toMatchObject({ startSeq: null, error: { code: "malformed_arguments" } });
    // The memory write runs alone: after the reads before it, before the reads after it.
    expectStartsAfter(step, [0, 1], [3]);
    expectStartsAfter(step, [3], [5, 6]);
    expect(step.metrics).toMatchObject({
      originalSize: 7,
      waveCount: 3,
      completedWaves: 3,
      repairReason: null,
    });
  },

  "slow-waves-for-live-view": (report) => {
    expect(report.modelCalls).toBe(3);
    const first = stepOf(report, 0);
    expect(first.metrics).toMatchObject({
      originalSize: 12,
      cap: 3,
      waveCount: 4,
      waveBoundaries: [
        [0, 2],
        [3, 5],
        [6, 8],
        [9, 11],
      ],
      completedWaves: 4,
    });
    expect(statuses(report, 0)).toEqual(Array(12).fill("ok"));
    expectStartsAfter(first, [0, 1, 2], [3, 4, 5]);
    expectStartsAfter(first, [6, 7, 8], [9, 10, 11]);
    // The stateful checkpoint runs alone, between the two slow reads.
    expect(stepOf(report, 1).plan).toEqual({
      kind: "execute",
      segments: [
        { kind: "wave", batchIndexes: [0] },
        { kind: "wave", batchIndexes: [1] },
        { kind: "wave", batchIndexes: [2] },
      ],
      problems: [],
    });
    expect(statuses(report, 1)).toEqual(["ok", "ok", "ok"]);
  },
};

const usesMcpServers = (preset: { scenario: unknown }) =>
  ((preset.scenario as { mcpServers?: unknown[] }).mcpServers ?? []).length > 0;

describe(`scenario presets (in memory)`, () => {
  it("has one preset per scenario file, named by it, and an expectation for every rule preset", () => {
    const scenariosDirectory = path.join(process.cwd(), "lib", "scenarios");
    const jsonIds = (directory: string) =>
      readdirSync(directory)
        .filter((fileName) => fileName.endsWith(".json"))
        .map((fileName) => fileName.slice(0, -".json".length));
    const ids = SCENARIO_PRESETS.map((preset) => preset.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(
      SCENARIO_PRESETS.filter((preset) => preset.group === "Example scenarios")
        .map((preset) => preset.id)
        .sort(),
    ).toEqual(jsonIds(scenariosDirectory).sort());
    const ruleIds = SCENARIO_PRESETS.filter((preset) => preset.group === "Planning rules").map(
      (preset) => preset.id,
    );
    expect([...ruleIds].sort()).toEqual(jsonIds(path.join(scenariosDirectory, "rules")).sort());
    expect([...ruleIds].sort()).toEqual(Object.keys(RULE_EXPECTATIONS).sort());
  });

  // A preset that uses an operator's MCP server runs against the real server in lib/server/mcp/mcp-runs.test.ts.
  it.each(
    SCENARIO_PRESETS.filter((preset) => !usesMcpServers(preset)).map(
      (preset) => [preset.id, preset] as const,
    ),
  )("%s parses, runs headless to COMPLETED and shows what it promises", async (id, preset) => {
    const validation = validateScenario(preset.scenario);
    if (!validation.ok) throw new Error(`${id}: ${JSON.stringify(validation.issues)}`);
    // How long a tool takes never changes what the runtime decides; the slow preset runs quickened.
    const report = await runScenarioHeadless(
      harness.host,
      buildScenario(withToolDelaysAtMost(preset.scenario as never, 20)),
    );
    expect(report).toMatchObject({ status: "COMPLETED", error: null, pending: null });
    expect(report.name).toBe(validation.scenario.name);
    expect(report.steps.at(-1)?.calls).toMatchObject([{ name: "finish", status: "ok" }]);
    expect(report.decisions).toHaveLength(validation.scenario.decisions.length);
    RULE_EXPECTATIONS[id]?.(report);
  });
});
