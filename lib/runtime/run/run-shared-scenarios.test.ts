import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import { parseScenarioJson } from "../scenario/parse-scenario";
import { type MemoryHarness, openMemoryHarness } from "../testing/scenario-harness";
import type { RunReport } from "../view/run-report";

/** One of the example scenarios (copies of the shared ones, in lib/scenarios), parsed as the CLI parses it. */
const loadSharedScenario = (fileName: string) =>
  parseScenarioJson(readFileSync(path.join(process.cwd(), "lib", "scenarios", fileName), "utf8"));

let harness: MemoryHarness;
beforeAll(async () => {
  harness = openMemoryHarness();
});
afterAll(() => harness?.close());

const run = (fileName: string) => runScenarioHeadless(harness.host, loadSharedScenario(fileName));
const callsOf = (report: RunReport, stepIndex: number) => report.steps[stepIndex]?.calls ?? [];
const statuses = (report: RunReport, stepIndex: number) =>
  callsOf(report, stepIndex).map((call) => call.status);

/** Every seq of a report, each start before its settle, all distinct. */
function expectConsistentSeqs(report: RunReport) {
  const seen = new Set<number>();
  for (const step of report.steps) {
    for (const call of step.calls) {
      if (call.startSeq === null) {
        expect(call.settleSeq).toBeNull();
        continue;
      }
      expect(call.settleSeq).toBeGreaterThan(call.startSeq);
      for (const seq of [call.startSeq, call.settleSeq as number]) {
        expect(seen.has(seq)).toBe(false);
        seen.add(seq);
      }
    }
  }
}

describe(`shared scenarios through the CLI code path (in memory)`, () => {
  it("14 reads at a cap of 8 run as waves [0..7] and [8..13], no regeneration", async () => {
    const report = await run("fourteen-reads-cap-eight.json");
    expect(report).toMatchObject({
      status: "COMPLETED",
      error: null,
      modelCalls: 2,
      pending: null,
      decisions: [],
    });
    const first = report.steps[0];
    expect(first?.plan).toEqual({
      kind: "execute",
      segments: [
        { kind: "wave", batchIndexes: [0, 1, 2, 3, 4, 5, 6, 7] },
        { kind: "wave", batchIndexes: [8, 9, 10, 11, 12, 13] },
      ],
      problems: [],
    });
    expect(first?.metrics).toEqual({
      originalSize: 14,
      cap: 8,
      waveCount: 2,
      waveBoundaries: [
        [0, 7],
        [8, 13],
      ],
      completedWaves: 2,
      approvalBarriers: 0,
      retainedCount: 0,
      invalidatedCount: 0,
      repairReason: null,
    });
    const calls = callsOf(report, 0);
    expect(calls.map((call) => call.batchIndex)).toEqual([...Array(14).keys()]);
    expect(calls.every((call) => call.status === "ok")).toBe(true);
    expect(calls[13]?.result).toEqual({ path: "src/module13.ts", content: "export const m13 = 13;\n" });
    // The second wave starts only after every call of the first has settled.
    const firstWaveSettled = Math.max(...calls.slice(0, 8).map((call) => call.settleSeq as number));
    const secondWaveStarted = Math.min(...calls.slice(8).map((call) => call.startSeq as number));
    expect(secondWaveStarted).toBeGreaterThan(firstWaveSettled);
    // Never more than the cap in flight.
    for (const call of calls) {
      const inFlight = calls.filter(
        (other) =>
          (other.startSeq as number) <= (call.startSeq as number) &&
          (other.settleSeq as number) > (call.startSeq as number),
      );
      expect(inFlight.length).toBeLessThanOrEqual(8);
    }
    expect(statuses(report, 1)).toEqual(["ok"]);
    expectConsistentSeqs(report);
  });

  it("an oversized batch holding a gated write goes to repair and dispatches nothing", async () => {
    const report = await run("oversized-batch-with-approval.json");
    expect(report).toMatchObject({ status: "COMPLETED", modelCalls: 3, decisions: [] });
    const repair = report.steps[0];
    expect(repair?.plan).toMatchObject({ kind: "repair", segments: [] });
    const problems =
      (repair?.plan as { problems?: Array<{ batchIndex: number | null; code: string }> })?.problems ?? [];
    expect(problems[0]).toMatchObject({ batchIndex: null, code: "too_many_calls" });
    expect(problems.some((problem) => problem.batchIndex === 0 && problem.code === "approval_gated")).toBe(
      true,
    );
    expect(statuses(report, 0)).toEqual(Array(6).fill("not_dispatched"));
    expect(callsOf(report, 0).every((call) => call.startSeq === null)).toBe(true);
    expect(repair?.metrics).toMatchObject({
      originalSize: 6,
      cap: 4,
      waveCount: 0,
      repairReason: "too_many_calls",
    });
    expect(report.steps[1]?.plan).toEqual({
      kind: "execute",
      segments: [{ kind: "wave", batchIndexes: [0, 1, 2, 3] }],
      problems: [],
    });
    expect(statuses(report, 1)).toEqual(["ok", "ok", "ok", "ok"]);
    expectConsistentSeqs(report);
  });

  it("approved write, then the retained read-back sees the new content", async () => {
    const report = await run("write-then-read-back.json");
    expect(report).toMatchObject({ status: "COMPLETED", modelCalls: 2, pending: null });
    expect(report.steps[0]?.plan).toEqual({
      kind: "execute",
      segments: [
        { kind: "barrier", batchIndex: 0 },
        { kind: "wave", batchIndexes: [1] },
      ],
      problems: [],
    });
    const [write, verify] = callsOf(report, 0);
    expect(write).toMatchObject({ id: "call_write", name: "write_file", status: "ok" });
    expect(verify).toMatchObject({
      id: "call_verify",
      status: "ok",
      arguments: '{"path": "config/app.json"}',
      result: { path: "config/app.json", content: '{"debug": true}\n' },
    });
    expect(verify?.startSeq).toBeGreaterThan(write?.settleSeq as number);
    expect(report.steps[0]?.metrics).toMatchObject({
      approvalBarriers: 1,
      retainedCount: 1,
      completedWaves: 1,
      invalidatedCount: 0,
    });
    expect(report.decisions).toEqual([
      {
        turnDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
        approve: true,
        actor: "operator",
        actorId: null,
        reason: "expected change",
        outcome: "executed",
        audited: true,
        decidedAt: expect.any(String),
        decisionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        kind: "decision",
        scope: "gate",
        batchIndex: 0,
        toolName: "write_file",
        arguments: report.steps[0]?.calls[0]?.arguments,
        argumentsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
        editedArguments: null,
        editedDigest: null,
      },
    ]);
    expectConsistentSeqs(report);
  });

  it("a denied delete invalidates the retained call and the model sees it next step", async () => {
    const report = await run("denied-write-invalidates-rest.json");
    expect(report).toMatchObject({ status: "COMPLETED", modelCalls: 3 });
    const [read, remove, list] = callsOf(report, 0);
    expect(read).toMatchObject({ status: "ok" });
    expect(remove).toMatchObject({ status: "denied", startSeq: null, error: { code: "denied" } });
    expect(remove?.error?.message).toContain("never delete user data");
    expect(list).toMatchObject({
      status: "invalidated",
      startSeq: null,
      settleSeq: null,
      error: { code: "invalidated" },
    });
    expect(report.steps[0]?.metrics).toMatchObject({
      invalidatedCount: 1,
      completedWaves: 1,
      retainedCount: 1,
    });
    expect(report.decisions).toMatchObject([{ approve: false, actor: "operator", outcome: "denied" }]);
    expect(callsOf(report, 1)).toMatchObject([
      { name: "reply", status: "ok", result: { message: "Understood, I will not delete it." } },
    ]);
    expect(callsOf(report, 2)).toMatchObject([{ name: "finish", status: "ok" }]);
    expectConsistentSeqs(report);
  });

  it("two barriers in one batch: each suspends with its own digest, in order", async () => {
    const report = await run("two-gates-in-one-batch.json");
    expect(report).toMatchObject({ status: "COMPLETED", modelCalls: 2 });
    expect(report.steps[0]?.plan).toMatchObject({
      segments: [
        { kind: "wave", batchIndexes: [0] },
        { kind: "barrier", batchIndex: 1 },
        { kind: "wave", batchIndexes: [2] },
        { kind: "barrier", batchIndex: 3 },
        { kind: "wave", batchIndexes: [4] },
      ],
    });
    const calls = callsOf(report, 0);
    expect(calls.map((call) => call.status)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    // Strict order: each segment starts after the previous one settled.
    for (let index = 1; index < calls.length; index += 1) {
      expect(calls[index]?.startSeq).toBeGreaterThan(calls[index - 1]?.settleSeq as number);
    }
    expect(calls[2]?.result).toEqual({ dir: "new", files: ["new/report.txt"] });
    expect(calls[4]?.result).toEqual({ dir: "old", files: [] });
    expect(report.decisions).toHaveLength(2);
    expect(report.decisions[0]?.turnDigest).not.toBe(report.decisions[1]?.turnDigest);
    expect(report.decisions.map((decision) => decision.actor)).toEqual(["scenario", "scenario"]);
    expect(report.steps[0]?.metrics).toMatchObject({
      approvalBarriers: 2,
      retainedCount: 3,
      waveCount: 3,
      completedWaves: 3,
    });
  });

  it("keeps a gap-free event sequence per run", async () => {
    const report = await run("two-gates-in-one-batch.json");
    const events = await harness.events(report.runId);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events[0]?.type).toBe("run_started");
    expect(events.at(-1)?.type).toBe("run_finished");
    expect(events.filter((event) => event.type === "awaiting_approval")).toHaveLength(2);
  });
});
