import { describe, expect, it } from "vitest";
import type { StoredRunEvent } from "../events/run-events";
import { type BacktestHost, backtestPolicy, type RecordedRun } from "./backtest-policy";
import { checkPolicy } from "./policy-document";

interface Sketch {
  name: string;
  args: Record<string, unknown>;
  gated: boolean;
  resourceClass?: "pure_read" | "write";
}

/**
 * A recorded run: run_started, then one step_planned per batch (an execute plan with no problems),
 * all planned on `day` unless a batch's index is in `laterDays` (then a day per index later).
 */
function recordedRun(
  runId: string,
  starter: string,
  batches: Sketch[][],
  options: {
    agent?: RecordedRun["agent"];
    mcpServers?: string[];
    fingerprint?: string;
    plannedAt?: (stepIndex: number) => string;
  } = {},
): RecordedRun {
  const at = "2026-03-02T10:00:00.000Z";
  const events = [
    {
      seq: 1,
      at,
      type: "run_started",
      payload: {
        name: runId,
        limits: {},
        startedBy: { id: starter, name: starter },
        mcpServers: options.mcpServers ?? [],
        forkedFrom: null,
      },
    },
    ...batches.map((batch, stepIndex) => ({
      seq: stepIndex + 2,
      at: options.plannedAt?.(stepIndex) ?? at,
      type: "step_planned",
      payload: {
        stepIndex,
        modelCalls: stepIndex + 1,
        completion: null,
        text: null,
        plan: { kind: "execute", segments: [], problems: [] },
        metrics: {},
        calls: batch.map((call, batchIndex) => ({
          batchIndex,
          id: `${runId}-${stepIndex}-${batchIndex}`,
          name: call.name,
          arguments: JSON.stringify(call.args),
          resourceClass: call.resourceClass ?? (call.gated ? "write" : "pure_read"),
          isGated: call.gated,
          status: "succeeded",
          error: null,
          allowedBy: null,
          toolFingerprint: call.name.includes("__") ? (options.fingerprint ?? null) : null,
        })),
      },
    })),
  ];
  return { runId, events: events as unknown as StoredRunEvent[], agent: options.agent ?? null };
}

/** A host that knows no tool and trusts no server: what a rule sees is then all the recording's. */
const knowsNothing: BacktestHost = { describeTool: () => undefined, trustOf: () => "untrusted" };

const write = (path: string): Sketch => ({ name: "write_file", args: { path, content: "x" }, gated: true });
const del = (path: string): Sketch => ({ name: "delete_file", args: { path }, gated: true });
const read = (path: string): Sketch => ({ name: "read_file", args: { path }, gated: false });

describe("backtest over recorded runs", () => {
  const checked = checkPolicy(`rules:
  - name: docs-writes
    when: call.name == "write_file" && call.arguments.path.startsWith("docs/")
    effect: allow
  - name: deletes
    when: call.name == "delete_file"
    effect: deny
    message: no deletes
  - name: other-writes
    when: call.name == "write_file"
    effect: require
    approvers: { role: approver }
    quorum: 2
  - name: secrets
    when: call.name == "read_file" && call.arguments.path.startsWith("secrets/")
    effect: require
`);
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  const logs = [
    recordedRun("r1", "ana", [[read("a"), write("docs/a.md"), write("docs/b.md")], [del("x")]]),
    recordedRun("r2", "bo", [
      [write("src/c.ts"), read("secrets/key")],
      [write("docs/c.md"), read("b")],
    ]),
  ];

  it("gives per call what the candidate would have done, and exactly the expected totals", () => {
    const result = backtestPolicy({ version: null, policy: checked.policy }, logs, knowsNothing);
    expect(
      result.rows.map((row) => [row.runId, row.step, row.batchIndex, row.recorded, row.candidate, row.rule]),
    ).toEqual([
      ["r1", 1, 0, "allow", "allow", null],
      ["r1", 1, 1, "require", "allow", "docs-writes"],
      ["r1", 1, 2, "require", "allow", "docs-writes"],
      ["r1", 2, 0, "require", "deny", "deletes"],
      ["r2", 1, 0, "require", "require", "other-writes"],
      ["r2", 1, 1, "allow", "require", "secrets"],
      ["r2", 2, 0, "require", "allow", "docs-writes"],
      ["r2", 2, 1, "allow", "allow", null],
    ]);
    expect(result.totals).toEqual({
      calls: 8,
      differences: 5,
      approvalsNoLongerAsked: 3,
      denied: 1,
      newlyGated: 1,
      waitsNeedingSecondApprover: 1,
    });
    // All on one day: 5 gates asked then (each of one approver); 2 gates after, one needing two.
    expect(result.workload).toEqual([{ day: "2026-03-02", before: 5, after: 3 }]);
  });

  it("reports only the calls of one tool when asked, with their own totals", () => {
    const result = backtestPolicy({ version: null, policy: checked.policy }, logs, knowsNothing, {
      tool: "write_file",
    });
    expect(result.rows.map((row) => row.callId)).toEqual(["r1-0-1", "r1-0-2", "r2-0-0", "r2-1-0"]);
    expect(result.totals).toEqual({
      calls: 4,
      differences: 3,
      approvalsNoLongerAsked: 3,
      denied: 0,
      newlyGated: 0,
      waitsNeedingSecondApprover: 1,
    });
  });

  it("counts the approver workload per day, before and after, each gate once per approver its quorum needs", () => {
    const spread = [
      recordedRun("r3", "ana", [[write("src/a.ts"), write("docs/a.md")], [write("src/b.ts")], [del("y")]], {
        plannedAt: (stepIndex) => `2026-03-0${3 + Math.min(stepIndex, 1)}T23:59:00.000Z`,
      }),
    ];
    const result = backtestPolicy({ version: null, policy: checked.policy }, spread, knowsNothing);
    expect(result.workload).toEqual([
      // Day 1: two gates asked; after, the src write needs two approvers and the docs write none.
      { day: "2026-03-03", before: 2, after: 2 },
      // Day 2: a src write (one approver → two) and a delete (one approver → denied, none).
      { day: "2026-03-04", before: 2, after: 2 },
    ]);
    expect(result.totals).toMatchObject({ calls: 4, approvalsNoLongerAsked: 1, denied: 1 });
  });

  it("lets a rule see the tool's MCP server and its trust, the run's agent and metadata, as live evaluation does", () => {
    const context = checkPolicy(`rules:
  - name: trusted-files-for-the-release-bot
    when: >-
      call.server == "files" && call.trust == "trusted" && call.fingerprint == "fp-1"
      && run.agent == "release-bot" && run.metadata["team"] == "docs" && batch.size == 2
    effect: allow
  - name: own-tools
    when: call.server == "" && call.trust == ""
    effect: deny
    message: only MCP tools here
`);
    if (!context.ok) throw new Error(JSON.stringify(context.problems));
    const mcpCall = (gated: boolean): Sketch => ({ name: "files__write", args: { path: "a" }, gated });
    const runs = [
      recordedRun("bot", "", [[mcpCall(true), read("a")]], {
        agent: { name: "release-bot", metadata: { team: "docs" } },
        mcpServers: ["files"],
        fingerprint: "fp-1",
      }),
      recordedRun("other-team", "", [[mcpCall(true), read("b")]], {
        agent: { name: "release-bot", metadata: { team: "ops" } },
        mcpServers: ["files"],
        fingerprint: "fp-1",
      }),
      // The server is not one the run enabled: the name alone does not make a tool an MCP one.
      recordedRun("no-server", "", [[mcpCall(false)]], { mcpServers: [] }),
    ];
    const trusted: BacktestHost = {
      ...knowsNothing,
      trustOf: (server) => (server === "files" ? "trusted" : "untrusted"),
    };
    const result = backtestPolicy({ version: null, policy: context.policy }, runs, trusted);
    expect(result.rows.map((row) => [row.runId, row.toolName, row.candidate, row.rule])).toEqual([
      ["bot", "files__write", "allow", "trusted-files-for-the-release-bot"],
      ["bot", "read_file", "deny", "own-tools"],
      ["other-team", "files__write", "require", null],
      ["other-team", "read_file", "deny", "own-tools"],
      ["no-server", "files__write", "deny", "own-tools"],
    ]);
    // Untrusted now: the first rule no longer matches the bot's call.
    const untrusted = backtestPolicy({ version: null, policy: context.policy }, runs, knowsNothing);
    expect(untrusted.rows[0]).toMatchObject({ runId: "bot", candidate: "require", rule: null });
  });

  it("sees the run's starter and the tool facts the host gives", () => {
    const starters = checkPolicy(`rules:
  - name: ana-trusted-effects
    when: run.starter == "ana" && call.effect == "IDEMPOTENT_WRITE"
    effect: allow
`);
    if (!starters.ok) throw new Error(JSON.stringify(starters.problems));
    const result = backtestPolicy({ version: 3, policy: starters.policy }, logs, {
      ...knowsNothing,
      describeTool: (name) => (name === "write_file" ? { effect: "IDEMPOTENT_WRITE" } : undefined),
    });
    expect(result.totals.approvalsNoLongerAsked).toBe(2);
    expect(result.rows.filter((row) => row.rule !== null).map((row) => row.callId)).toEqual([
      "r1-0-1",
      "r1-0-2",
    ]);
  });
});
