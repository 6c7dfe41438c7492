import { describe, expect, it } from "vitest";
import { SCENARIO_PRESETS } from "@/lib/scenarios/scenario-presets";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import { decodeStoredScenario } from "../host/stored-scenarios";
import { validateScenario } from "../scenario/parse-scenario";
import type { Scenario } from "../scenario/scenario-schema";
import { createMemoryRunHost } from "../testing/memory-run-host";
import { buildScenario, withToolDelaysAtMost } from "../testing/scenario-harness";
import { exportRunAsScenario } from "./export-scenario";
import type { RunReport } from "./run-report";

/** What a replay must reproduce: the plans and segments, and every call's outcome, in order. */
function behaviourOf(report: RunReport) {
  return {
    status: report.status,
    error: report.error,
    steps: report.steps.map((step) => ({
      text: step.text,
      plan: step.plan,
      metrics: step.metrics,
      calls: step.calls.map(({ id, name, arguments: args, editedArguments, status, result, error }) => ({
        id,
        name,
        args,
        editedArguments,
        status,
        result,
        error,
      })),
    })),
    decisions: report.decisions.map(
      ({ approve, outcome, kind, scope, batchIndex, editedArguments, actor }) => ({
        approve,
        outcome,
        kind,
        scope,
        batchIndex,
        editedArguments,
        actor,
      }),
    ),
  };
}

async function recordAndReplay(scenario: Scenario) {
  const host = createMemoryRunHost();
  const recorded = await runScenarioHeadless(host, scenario);
  const run = await host.getRun(recorded.runId);
  const view = await host.loadView(recorded.runId);
  if (!run || !view) throw new Error("the recorded run is gone");
  const exported = exportRunAsScenario(decodeStoredScenario(run), view);
  // What is exported is a scenario the schema accepts as it stands: a file a person can save and load.
  const checked = validateScenario(JSON.parse(JSON.stringify(exported.scenario)));
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
  const replayed = await runScenarioHeadless(host, checked.scenario);
  return { recorded, replayed, exported };
}

describe("record and replay", () => {
  it.each(
    SCENARIO_PRESETS.filter((preset) => {
      const scenario = preset.scenario as { model?: { kind?: string }; mcpServers?: unknown[] };
      // An MCP server's tools are not in memory: that preset runs in lib/server/mcp/mcp-runs.test.ts.
      return scenario.model?.kind === "scripted" && (scenario.mcpServers ?? []).length === 0;
    }),
  )("replays $id exactly: the same plans, segments and outcomes", async (preset) => {
    // How long a tool takes never changes a plan or an outcome; the slow preset runs quickened.
    const { recorded, replayed, exported } = await recordAndReplay(
      buildScenario(withToolDelaysAtMost(preset.scenario as never, 20)),
    );
    expect(behaviourOf(replayed)).toEqual(behaviourOf(recorded));
    expect(exported.notes).toEqual([]);
    expect(exported.scenario.name).toBe(`${recorded.name} (replay)`);
  });

  it("replays every decision variant and raw, malformed arguments as they were", async () => {
    const { recorded, replayed, exported } = await recordAndReplay(
      buildScenario({
        name: "variants",
        workspace: { "old.txt": "old" },
        tools: [
          { name: "deploy", resourceClass: "write", effect: "NON_IDEMPOTENT_WRITE", approval: "always" },
        ],
        model: {
          kind: "scripted",
          turns: [
            {
              text: "let me look",
              calls: [
                { id: "bad", name: "read_file", arguments: '{"path": ' },
                { id: "w", name: "write_file", arguments: { path: "new.txt", content: "draft" } },
                { id: "d", name: "delete_file", arguments: { path: "old.txt" } },
              ],
            },
            { calls: [{ name: "deploy", arguments: {} }] },
            { calls: [{ name: "deploy", arguments: {} }] },
            { calls: [{ name: "finish", arguments: { summary: "done" } }] },
          ],
        },
        decisions: [
          {
            approve: true,
            actor: "ada",
            scope: "turn",
            editedArguments: { path: "new.txt", content: "final" },
          },
          { approve: true, actor: "ada", alwaysAllow: true },
        ],
      }),
    );
    expect(recorded.status).toBe("COMPLETED");
    expect(behaviourOf(replayed)).toEqual(behaviourOf(recorded));
    const turns = (exported.scenario.model as { turns: Array<{ calls: Array<{ arguments: unknown }> }> })
      .turns;
    expect(turns[0]?.calls[0]?.arguments).toBe('{"path": ');
  });

  it("says what it cannot replay: an expired wait", async () => {
    const clock = { now: Date.parse("2026-11-30T08:00:00Z") };
    const { createMemoryRunStore } = await import("../testing/memory-run-store");
    const host = createMemoryRunHost({
      store: createMemoryRunStore({ now: () => clock.now }),
      now: () => clock.now,
      deadlineTimers: false,
    });
    const { runId, settled } = await host.startRun(
      buildScenario({
        name: "expires",
        approvalTimeoutSeconds: 5,
        model: {
          kind: "scripted",
          turns: [
            { calls: [{ name: "write_file", arguments: { path: "a", content: "b" } }] },
            { calls: [{ name: "finish", arguments: { summary: "x" } }] },
          ],
        },
      }),
    );
    await settled;
    clock.now += 6_000;
    const [expired] = await host.sweepApprovalDeadlines();
    await expired?.settled;
    const run = await host.getRun(runId);
    const view = await host.loadView(runId);
    if (!run || !view) throw new Error("gone");
    const exported = exportRunAsScenario(decodeStoredScenario(run), view);
    expect(exported.scenario.decisions).toEqual([]);
    expect(exported.notes).toEqual(["The wait at step 1 expired; the replay waits there for a decision."]);
  });
});
