import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScenarioInput } from "@/lib/runtime";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import { buildScenario, type MemoryHarness, openMemoryHarness } from "../testing/scenario-harness";

let harness: MemoryHarness;
beforeAll(async () => {
  harness = openMemoryHarness();
});
afterAll(() => harness?.close());

const finish = { calls: [{ name: "finish", arguments: { summary: "done" } }] };
const headless = (input: ScenarioInput) => runScenarioHeadless(harness.host, buildScenario(input));

async function waitFor<T>(read: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const value = await read();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe(`execution rules (in memory)`, () => {
  it("retained calls keep their ids and payloads, and no completion is spent on them", async () => {
    const report = await headless({
      name: "retained",
      workspace: { "a.txt": "A" },
      model: {
        kind: "scripted",
        turns: [
          {
            calls: [
              { id: "r1", name: "read_file", arguments: '{ "path" :"a.txt" }' },
              { id: "w1", name: "write_file", arguments: { path: "b.txt", content: "B" } },
              { id: "r2", name: "read_file", arguments: '{"path":"b.txt"}' },
              { id: "m1", name: "memory_set", arguments: '{"key":"k","value":[1,2]}' },
            ],
          },
          finish,
        ],
      },
      decisions: [{ approve: true }],
    });
    // Exactly the scripted turns were consumed: two completions, none to rebuild the retained calls.
    expect(report).toMatchObject({ status: "COMPLETED", modelCalls: 2 });
    const calls = report.steps[0]?.calls ?? [];
    expect(calls.map((call) => [call.id, call.arguments])).toEqual([
      ["r1", '{ "path" :"a.txt" }'],
      ["w1", '{"path":"b.txt","content":"B"}'],
      ["r2", '{"path":"b.txt"}'],
      ["m1", '{"key":"k","value":[1,2]}'],
    ]);
    expect(calls[2]?.result).toEqual({ path: "b.txt", content: "B" });
    // Prefix settles before the barrier starts; the stateful memory call waits for the read.
    expect(calls[1]?.startSeq).toBeGreaterThan(calls[0]?.settleSeq as number);
    expect(calls[3]?.startSeq).toBeGreaterThan(calls[2]?.settleSeq as number);
    expect(report.steps[0]?.plan).toMatchObject({
      segments: [
        { kind: "wave", batchIndexes: [0] },
        { kind: "barrier", batchIndex: 1 },
        { kind: "wave", batchIndexes: [2] },
        { kind: "wave", batchIndexes: [3] },
      ],
    });
  });

  it("a run out of decisions waits with the pending turn and digest; the next barrier gets a new digest", async () => {
    const scenario = buildScenario({
      name: "two gates, decided one at a time",
      model: {
        kind: "scripted",
        turns: [
          {
            calls: [
              { id: "w1", name: "write_file", arguments: { path: "x", content: "1" } },
              { id: "l1", name: "list_files", arguments: {} },
              { id: "w2", name: "write_file", arguments: { path: "y", content: "2" } },
            ],
          },
          finish,
        ],
      },
    });
    const report = await runScenarioHeadless(harness.host, scenario);
    expect(report.status).toBe("WAITING_FOR_APPROVAL");
    expect(report.pending?.calls.map((call) => call.id)).toEqual(["w1", "l1", "w2"]);
    expect(report.pending?.turnDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(report.steps[0]?.calls.map((call) => call.status)).toEqual(["pending", "pending", "pending"]);

    const first = await harness.host.decide(report.runId, {
      approve: true,
      turnDigest: report.pending?.turnDigest,
      actor: "alice",
    });
    expect(first).toEqual({ outcome: "executed", status: "WAITING_FOR_APPROVAL" });
    const second = await harness.host.getReport(report.runId);
    expect(second?.pending?.calls.map((call) => call.id)).toEqual(["w2"]);
    expect(second?.pending?.turnDigest).not.toBe(report.pending?.turnDigest);
    expect(second?.steps[0]?.calls.map((call) => call.status)).toEqual(["ok", "ok", "pending"]);

    const last = await harness.host.decide(report.runId, {
      approve: true,
      turnDigest: second?.pending?.turnDigest,
      actor: "bob",
    });
    expect(last).toEqual({ outcome: "executed", status: "COMPLETED" });
  });

  it("a failed gated call invalidates every later call", async () => {
    const report = await headless({
      name: "gated failure",
      tools: [
        {
          name: "deploy",
          description: "Deploy",
          resourceClass: "write",
          effect: "NON_IDEMPOTENT_WRITE",
          approval: "always",
          parameters: { type: "object", properties: { service: { type: "string" } }, required: ["service"] },
          error: "cluster unreachable",
        },
      ],
      model: {
        kind: "scripted",
        turns: [
          {
            calls: [
              { name: "deploy", arguments: { service: "api" } },
              { name: "list_files", arguments: {} },
              { name: "read_file", arguments: { path: "a" } },
            ],
          },
          finish,
        ],
      },
      decisions: [{ approve: true }],
    });
    expect(report.status).toBe("COMPLETED");
    const calls = report.steps[0]?.calls ?? [];
    expect(calls[0]).toMatchObject({
      status: "error",
      error: { code: "tool_error", message: expect.stringContaining("cluster unreachable") },
    });
    expect(calls.slice(1).map((call) => [call.status, call.error?.message])).toEqual([
      ["invalidated", expect.stringMatching(/^Not executed: the approval-gated call \S+ .* failed\.$/)],
      ["invalidated", expect.stringMatching(/^Not executed: the approval-gated call \S+ .* failed\.$/)],
    ]);
    expect(report.steps[0]?.metrics).toMatchObject({ invalidatedCount: 2 });
  });

  it("cancelling the turn of a waiting run invalidates its pending calls and goes on with the next step", async () => {
    const scenario = buildScenario({
      name: "cancel turn while waiting",
      model: {
        kind: "scripted",
        turns: [
          {
            calls: [
              { name: "delete_file", arguments: { path: "a" } },
              { name: "list_files", arguments: {} },
            ],
          },
          finish,
        ],
      },
    });
    const waiting = await runScenarioHeadless(harness.host, scenario);
    expect(waiting.status).toBe("WAITING_FOR_APPROVAL");
    expect(await harness.host.cancelRun(waiting.runId, "turn")).toEqual({ status: "COMPLETED" });
    const report = await harness.host.getReport(waiting.runId);
    expect(report?.steps[0]?.calls.map((call) => [call.status, call.error?.message])).toEqual([
      ["invalidated", expect.stringContaining("cancelled this turn")],
      ["invalidated", expect.stringContaining("cancelled this turn")],
    ]);
    expect(report?.steps[1]?.calls.map((call) => call.name)).toEqual(["finish"]);
    expect(report?.modelCalls).toBe(2);
  });

  it("cancelling a waiting run invalidates its pending calls and ends it CANCELLED", async () => {
    const waiting = await headless({
      name: "cancel run while waiting",
      model: {
        kind: "scripted",
        turns: [{ calls: [{ name: "delete_file", arguments: { path: "a" } }] }, finish],
      },
    });
    expect(await harness.host.cancelRun(waiting.runId, "run")).toEqual({ status: "CANCELLED" });
    const report = await harness.host.getReport(waiting.runId);
    expect(report).toMatchObject({ status: "CANCELLED", modelCalls: 1, pending: null });
    expect(report?.steps[0]?.calls[0]).toMatchObject({ status: "invalidated" });
  });

  it.each(["turn", "run"] as const)(
    "cancelling the %s of a running run aborts in-flight tools and invalidates the rest",
    async (scope) => {
      const scenario = buildScenario({
        name: `cancel ${scope} while running`,
        tools: [
          {
            name: "slow_scan",
            description: "Slow",
            resourceClass: "pure_read",
            effect: "READ",
            approval: "never",
            delayMs: 20_000,
          },
        ],
        model: {
          kind: "scripted",
          turns: [
            {
              calls: [
                { name: "slow_scan", arguments: {} },
                { name: "memory_set", arguments: { key: "k", value: 1 } },
              ],
            },
            finish,
          ],
        },
      });
      const { runId, settled } = await harness.host.startRun(scenario);
      await waitFor(
        async () => (await harness.events(runId)).some((event) => event.type === "call_started"),
        "the slow call to start",
      );
      expect(await harness.host.cancelRun(runId, scope)).toEqual({ status: "RUNNING" });
      expect(await settled).toBe(scope === "run" ? "CANCELLED" : "COMPLETED");
      const report = await harness.host.getReport(runId);
      const [slow, memory] = report?.steps[0]?.calls ?? [];
      // It had started: an error result that says a cancellation stopped it, not that the tool failed.
      expect(slow).toMatchObject({ status: "error", error: { code: "cancelled" } });
      expect(slow?.error?.message).toBe(
        "slow_scan was stopped by a cancellation while it ran; it may have done part of its work.",
      );
      expect(memory).toMatchObject({ status: "invalidated" });
      expect(memory?.error?.message).toContain(scope === "run" ? "cancelled the run" : "cancelled this turn");
      // The reason's code is the invalidation's own record.
      const invalidated = (await harness.events(runId)).find((event) => event.type === "calls_invalidated");
      expect(invalidated?.payload).toMatchObject({ reason: `${scope}_cancelled` });
      expect(report?.steps).toHaveLength(scope === "run" ? 1 : 2);
    },
  );

  it("a plain batch runs its valid calls and answers malformed, unknown or invalid ones with an error result", async () => {
    const report = await headless({
      name: "plain batch with bad calls",
      workspace: { "a.txt": "A" },
      model: {
        kind: "scripted",
        turns: [
          {
            calls: [
              { name: "read_file", arguments: '{"path": "a.txt"' },
              { name: "teleport", arguments: {} },
              { name: "read_file", arguments: { path: "a.txt" } },
              { name: "read_file", arguments: { path: "../etc/passwd" } },
            ],
          },
          finish,
        ],
      },
    });
    const calls = report.steps[0]?.calls ?? [];
    // A path that leaves the workspace is refused as the call is planned, as its schema would be.
    expect(calls.map((call) => call.status)).toEqual([
      "not_dispatched",
      "not_dispatched",
      "ok",
      "not_dispatched",
    ]);
    expect(calls[0]?.error?.code).toBe("malformed_arguments");
    expect(calls[1]?.error?.code).toBe("unknown_tool");
    expect(calls[3]?.error).toMatchObject({ code: "invalid_arguments" });
    expect(calls[3]?.error?.message).toContain("../etc/passwd");
    expect(report.steps[0]?.plan).toMatchObject({
      kind: "execute",
      segments: [{ kind: "wave", batchIndexes: [2] }],
    });
  });

  it("repairs are bounded: past maxRepairAttempts the run fails with repair_exhausted", async () => {
    const bad = {
      calls: [
        { name: "reply", arguments: { message: "hi" } },
        { name: "finish", arguments: { summary: "x" } },
      ],
    };
    const report = await headless({
      name: "repair exhausted",
      limits: { maxRepairAttempts: 1 },
      model: { kind: "scripted", turns: [bad, bad, finish] },
    });
    expect(report).toMatchObject({ status: "FAILED", modelCalls: 2, error: { code: "repair_exhausted" } });
    expect(report.steps.map((step) => (step.plan as { kind: string }).kind)).toEqual(["repair", "repair"]);
    expect(report.steps[0]?.metrics).toMatchObject({ repairReason: "terminal_with_siblings" });
  });

  it("a repaired response runs normally and the repair counter starts again", async () => {
    const tooMany = {
      calls: Array.from({ length: 3 }, () => ({ name: "memory_get", arguments: { key: "k" } })),
    };
    const report = await headless({
      name: "repair then run",
      limits: { maxParallelToolCalls: 2, maxRepairAttempts: 1 },
      model: {
        kind: "scripted",
        turns: [tooMany, { calls: [{ name: "memory_get", arguments: { key: "k" } }] }, tooMany, finish],
      },
    });
    expect(report.status).toBe("COMPLETED");
    expect(report.steps.map((step) => (step.plan as { kind: string }).kind)).toEqual([
      "repair",
      "execute",
      "repair",
      "execute",
    ]);
  });

  it("a completion without tool calls is sent back for repair; only finish ends the run", async () => {
    const report = await headless({
      name: "text only",
      model: { kind: "scripted", turns: [{ text: "All done, I think.", calls: [] }, finish] },
    });
    expect(report).toMatchObject({ status: "COMPLETED", modelCalls: 2 });
    expect(report.steps[0]).toMatchObject({
      text: "All done, I think.",
      plan: { kind: "repair", problems: [{ batchIndex: null, code: "no_tool_calls" }] },
      metrics: { repairReason: "no_tool_calls" },
    });
  });

  it("a script that runs out fails the run with script_exhausted", async () => {
    const report = await headless({
      name: "exhausted",
      model: { kind: "scripted", turns: [{ calls: [{ name: "reply", arguments: { message: "hello" } }] }] },
    });
    expect(report).toMatchObject({ status: "FAILED", modelCalls: 1, error: { code: "script_exhausted" } });
    expect(report.steps[0]?.calls[0]).toMatchObject({
      name: "reply",
      status: "ok",
      result: { message: "hello" },
    });
  });
});
