import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { StoredRunEvent } from "../events/run-events";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import { parseScenarioJson } from "../scenario/parse-scenario";
import type { Scenario } from "../scenario/scenario-schema";
import { type MemoryHarness, openMemoryHarness } from "../testing/scenario-harness";
import { summariseApprovals } from "./approval-insights";

const shared = (fileName: string) =>
  parseScenarioJson(readFileSync(path.join(process.cwd(), "lib", "scenarios", fileName), "utf8"));

const BASE = Date.UTC(2026, 10, 30, 9);
const SECOND = 1_000;

let harness: MemoryHarness;
beforeAll(() => {
  harness = openMemoryHarness();
});

/**
 * A real run's events, re-timed so the numbers are exact: one second per event from `startAt`,
 * and a person who takes `waitMs` to decide (everything after the first wait moves by it).
 */
async function seededRun(scenario: Scenario, startAt: number, waitMs = 0) {
  const report = await runScenarioHeadless(harness.host, scenario);
  const events = await harness.events(report.runId);
  const waitedAt =
    events.find((event) => event.type === "awaiting_approval")?.seq ?? Number.POSITIVE_INFINITY;
  const retimed: StoredRunEvent[] = events.map((event) => ({
    ...event,
    at: new Date(startAt + event.seq * SECOND + (event.seq > waitedAt ? waitMs : 0)).toISOString(),
  }));
  return { runId: report.runId, events: retimed };
}

const approvedBy = (actor: string) => ({
  ...shared("write-then-read-back.json"),
  decisions: [{ approve: true, actor }],
});

describe("the approvals dashboard's numbers, from a seeded set of runs", () => {
  it("counts waits, decision times per tool and approver, gated calls and the completions waves and barriers saved", async () => {
    const runs = [
      await seededRun(approvedBy("operator"), BASE, 60 * SECOND),
      await seededRun(approvedBy("ada"), BASE + 3_600_000, 120 * SECOND),
      await seededRun(shared("denied-write-invalidates-rest.json"), BASE + 2 * 3_600_000, 30 * SECOND),
      await seededRun(shared("fourteen-reads-cap-eight.json"), BASE + 3 * 3_600_000),
      await seededRun({ ...shared("write-then-read-back.json"), decisions: [] }, BASE + 4 * 3_600_000),
      // Outside the range: never counted.
      await seededRun(approvedBy("late"), BASE + 48 * 3_600_000, 5 * SECOND),
    ];
    const insights = summariseApprovals(runs, {
      since: new Date(BASE).toISOString(),
      until: new Date(BASE + 24 * 3_600_000).toISOString(),
      bucketMs: 6 * 3_600_000,
    });

    expect(insights.runs).toBe(5);
    expect(insights.waits).toEqual({ started: 4, decided: 3, expired: 0, cancelled: 0, open: 1 });
    expect(insights.waitsOverTime.map((bucket) => bucket.started)).toEqual([4, 0, 0, 0]);
    // A wait lasts from awaiting_approval to the claim that took it: one event's second plus the person's time.
    expect(insights.byTool).toEqual([
      {
        tool: "write_file",
        waits: 3,
        expired: 0,
        decisions: 2,
        p50Ms: 61 * SECOND,
        p90Ms: 121 * SECOND,
        maxMs: 121 * SECOND,
      },
      {
        tool: "delete_file",
        waits: 1,
        expired: 0,
        decisions: 1,
        p50Ms: 31 * SECOND,
        p90Ms: 31 * SECOND,
        maxMs: 31 * SECOND,
      },
    ]);
    expect(insights.byApprover).toEqual([
      { approver: "operator", decisions: 2, p50Ms: 31 * SECOND, p90Ms: 61 * SECOND, maxMs: 61 * SECOND },
      { approver: "ada", decisions: 1, p50Ms: 121 * SECOND, p90Ms: 121 * SECOND, maxMs: 121 * SECOND },
    ]);
    expect(insights.byServer).toEqual([{ server: "built-in", waits: 4 }]);
    // write-then-read-back: 2 + 1 calls (write gated), twice, and the waiting run's first 2; denied: 3 + 1 + 1
    // (delete gated); reads: 14 + 1.
    expect(insights.calls).toEqual({ total: 28, gated: 4, allowedByGrant: 0, ungated: 24 });
    // Saved: each approved write cut its read-back under legacy (2), the 14 reads over a cap of 8 (1).
    // The waiting run's write has not run yet, and the denied delete would not have been re-sent.
    expect(insights.completions).toEqual({ total: 10, savedByWavesAndBarriers: 3, wastedUnderLegacy: 0 });
  });

  it("a run under the legacy policy counts the completions it wasted, as its report does, and saves none", async () => {
    const scenario = { ...shared("fourteen-reads-cap-eight.json"), executionPolicy: "legacy" as const };
    const report = await runScenarioHeadless(harness.host, scenario);
    const events = await harness.events(report.runId);
    const insights = summariseApprovals([{ runId: report.runId, events }], {
      since: events[0]?.at ?? "",
      until: new Date(Date.now() + 60_000).toISOString(),
      bucketMs: 3_600_000,
    });
    expect(report.metrics.wastedCompletions).toBeGreaterThan(0);
    expect(insights.completions).toEqual({
      total: report.steps.length,
      savedByWavesAndBarriers: 0,
      wastedUnderLegacy: report.metrics.wastedCompletions,
    });
  });

  it("an empty range is all zeros, with its buckets", () => {
    const insights = summariseApprovals([], {
      since: "2026-11-30T00:00:00.000Z",
      until: "2026-12-01T00:00:00.000Z",
      bucketMs: 12 * 3_600_000,
    });
    expect(insights.waitsOverTime).toEqual([
      { start: "2026-11-30T00:00:00.000Z", started: 0, expired: 0 },
      { start: "2026-11-30T12:00:00.000Z", started: 0, expired: 0 },
    ]);
    expect(insights.byTool).toEqual([]);
    expect(insights.waits.started).toBe(0);
  });
});
