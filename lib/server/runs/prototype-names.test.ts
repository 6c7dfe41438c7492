import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileChange } from "@/components/decisions/read-file-change";
import { testDriverName } from "@/db/testing/test-database";
import type { RunHost, ScenarioInput } from "@/lib/runtime";
import { foldRunEvents } from "@/lib/runtime/events/run-view";
import { runScenarioHeadless } from "@/lib/runtime/host/run-scenario-headless";
import { preflightCall } from "@/lib/runtime/planner/preflight";
import { markAllowedCalls, type ToolAllowances } from "@/lib/runtime/run/tool-allowances";
import { openMemoryHarness } from "@/lib/runtime/testing/scenario-harness";
import { TOOL_NAME_PATTERN } from "@/lib/runtime/tools/custom-tool-declaration";
import { createToolRegistry } from "@/lib/runtime/tools/tool-registry";
import {
  buildScenario,
  openScenarioHarness,
  type ScenarioHarness,
} from "@/lib/server/testing/scenario-harness";

// Names are keys: a tool, a grant, an approval override, a file. One that is also the name of
// something every JavaScript object inherits must mean that tool, and nothing inherited.
const INHERITED_NAMES = ["toString", "constructor", "valueOf", "hasOwnProperty", "isPrototypeOf"];

const tool = (name: string, approval: "always" | "never") => ({
  name,
  description: `the ${name} tool`,
  resourceClass: approval === "always" ? ("write" as const) : ("pure_read" as const),
  effect: approval === "always" ? ("NON_IDEMPOTENT_WRITE" as const) : ("READ" as const),
  approval,
  parameters: { type: "object" },
  result: { ran: name },
});

/**
 * `toString` is gated and granted for the rest of the run at its first
 * barrier; `valueOf` is gated by the scenario's approval override, not by
 * its own declaration; the others are reads.
 */
const scenario: ScenarioInput = {
  name: "tools named like Object.prototype",
  tools: [
    tool("toString", "always"),
    tool("valueOf", "never"),
    tool("constructor", "never"),
    tool("hasOwnProperty", "never"),
    tool("isPrototypeOf", "never"),
  ],
  approvals: { valueOf: "always" as const },
  workspace: { constructor: "a file named constructor" },
  model: {
    kind: "scripted",
    turns: [
      {
        calls: [
          { name: "constructor", arguments: {} },
          { name: "toString", arguments: {} },
          { name: "hasOwnProperty", arguments: {} },
        ],
      },
      {
        calls: [
          { name: "toString", arguments: {} },
          { name: "isPrototypeOf", arguments: {} },
          { name: "read_file", arguments: { path: "constructor" } },
          { name: "valueOf", arguments: {} },
        ],
      },
      { calls: [{ name: "finish", arguments: { summary: "done" } }] },
    ],
  },
  decisions: [
    { approve: true, actor: "ada", alwaysAllow: true },
    { approve: true, actor: "ada" },
  ],
};

type Service = Pick<
  RunHost,
  "startRun" | "getRun" | "decide" | "getReport" | "loadView" | "readEvents" | "exportScenario"
>;

async function expectReadableEndToEnd(service: Service): Promise<string> {
  const { runId, settled } = await service.startRun(buildScenario(scenario));
  expect(await settled).toBe("WAITING_FOR_APPROVAL");

  const waiting = await service.loadView(runId);
  expect(waiting?.pending?.calls.map((call) => call.name)).toEqual(["toString", "hasOwnProperty"]);
  expect(waiting?.steps[0]?.calls.map((call) => [call.name, call.isGated, call.allowedBy])).toEqual([
    ["constructor", false, null],
    ["toString", true, null],
    ["hasOwnProperty", false, null],
  ]);

  const first = await service.decide(runId, {
    approve: true,
    turnDigest: waiting?.pending?.turnDigest ?? "",
    actor: "ada",
    actorId: null,
    alwaysAllow: true,
  });
  expect(first).toEqual({ outcome: "executed", status: "WAITING_FOR_APPROVAL" });

  // The grant lets the second toString through; valueOf waits, as the scenario's override says.
  const second = await service.loadView(runId);
  expect(second?.allowedTools).toEqual({ toString: expect.objectContaining({ actor: "ada" }) });
  expect(Object.keys(second?.allowedTools ?? {})).toEqual(["toString"]);
  expect(second?.pending?.calls.map((call) => call.name)).toEqual(["valueOf"]);
  expect(
    second?.steps[1]?.calls.map((call) => [call.name, call.isGated, call.allowedBy?.actor ?? null]),
  ).toEqual([
    ["toString", false, "ada"],
    ["isPrototypeOf", false, null],
    ["read_file", false, null],
    ["valueOf", true, null],
  ]);
  expect(
    await service.decide(runId, {
      approve: true,
      turnDigest: second?.pending?.turnDigest ?? "",
      actor: "ada",
      actorId: null,
    }),
  ).toEqual({ outcome: "executed", status: "COMPLETED" });

  const report = await service.getReport(runId);
  expect(report).toMatchObject({ status: "COMPLETED", error: null });
  const outcomes = report?.steps.flatMap((step) => step.calls.map((call) => [call.name, call.status]));
  expect(outcomes).toEqual([
    ["constructor", "ok"],
    ["toString", "ok"],
    ["hasOwnProperty", "ok"],
    ["toString", "ok"],
    ["isPrototypeOf", "ok"],
    ["read_file", "ok"],
    ["valueOf", "ok"],
    ["finish", "ok"],
  ]);
  expect(report?.steps[1]?.calls[2]?.result).toMatchObject({ content: "a file named constructor" });
  expect(report?.decisions.map((decision) => [decision.kind, decision.toolName])).toEqual([
    ["decision", "toString"],
    ["automatic", "toString"],
    ["decision", "valueOf"],
  ]);

  // The event log still decodes from the start, and the export replays the same run.
  const events = await service.readEvents(runId, 0);
  expect(foldRunEvents(runId, events).status).toBe("COMPLETED");
  const exported = await service.exportScenario(runId);
  expect(exported?.scenario).toMatchObject({ approvals: { valueOf: "always" } });
  const replay = await runScenarioHeadless(service, buildScenario(exported?.scenario ?? scenario));
  expect(replay.status).toBe("COMPLETED");
  expect(replay.steps.map((step) => step.plan)).toEqual(report?.steps.map((step) => step.plan));
  return runId;
}

describe("tools named like what every object inherits (in memory)", () => {
  it("start, barrier, always-allow, override, view, report and export all read them as tools", async () => {
    await expectReadableEndToEnd(openMemoryHarness().host);
  });
});

describe(`tools named like what every object inherits (${testDriverName})`, () => {
  let harness: ScenarioHarness;
  beforeAll(async () => {
    harness = await openScenarioHarness();
  });
  afterAll(() => harness?.close());

  it("start, barrier, always-allow, override, view, report, export, inbox and audit", async () => {
    const runId = await expectReadableEndToEnd(harness.service);
    const audited = await harness.service.listAudit({ limit: 10, filter: { tool: "toString", run: runId } });
    expect(audited.items.map((row) => row.outcome)).toEqual(["automatic", "approved"]);
  });
});

describe("any tool name, inherited ones included", () => {
  const inheritedToolNames = Object.getOwnPropertyNames(Object.prototype).filter(
    (name) => TOOL_NAME_PATTERN.test(name) && !name.includes("__"),
  );
  const toolNames = fc.oneof(
    fc.constantFrom(...inheritedToolNames, ...INHERITED_NAMES),
    fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,20}$/),
  );

  it("is gated by its own policy and granted only by its own grant", () => {
    fc.assert(
      fc.property(toolNames, fc.boolean(), (name, granted) => {
        const registry = createToolRegistry({ tools: [tool(name, "always")] });
        const call = { id: "c1", name, arguments: "{}", batchIndex: 0 };
        const allowances: ToolAllowances = granted
          ? { [name]: { decisionId: "d1", actor: "ada", actorId: null } }
          : {};
        const [marked] = markAllowedCalls([call], [preflightCall(call, registry)], registry, allowances);
        expect(marked?.isGated).toBe(true);
        expect(marked?.allowedBy ?? null).toEqual(granted ? allowances[name] : null);
      }),
    );
  });

  it("is approved by an override only when the scenario has one for it", () => {
    fc.assert(
      fc.property(
        toolNames,
        fc.constantFrom("always", "never") as fc.Arbitrary<"always" | "never">,
        (name, own) => {
          expect(createToolRegistry({ tools: [tool(name, own)] }).get(name)?.approval).toBe(own);
          const flipped = own === "always" ? "never" : "always";
          const registry = createToolRegistry({ tools: [tool(name, own)], approvals: { [name]: flipped } });
          expect(registry.get(name)?.approval).toBe(flipped);
        },
      ),
    );
  });

  it("changes no file unless it is a built-in file tool", () => {
    fc.assert(
      fc.property(toolNames, (name) => {
        expect(readFileChange({ name, arguments: '{"path":"a.txt","content":"x"}' })).toBeNull();
      }),
    );
    expect(readFileChange({ name: "write_file", arguments: '{"path":"a.txt","content":"x"}' })).toEqual({
      path: "a.txt",
      content: "x",
    });
  });
});

describe("a workspace file named __proto__", () => {
  const withProtoFile: ScenarioInput = JSON.parse(
    JSON.stringify({
      name: "a file named __proto__",
      workspace: { "notes.md": "notes" },
      model: {
        kind: "scripted",
        turns: [
          {
            calls: [
              { name: "read_file", arguments: { path: "__proto__" } },
              { name: "list_files", arguments: {} },
              { name: "write_file", arguments: { path: "__proto__", content: "changed" } },
            ],
          },
          { calls: [{ name: "read_file", arguments: { path: "__proto__" } }] },
          { calls: [{ name: "finish", arguments: { summary: "done" } }] },
        ],
      },
    }),
  );
  // Built as JSON.parse builds it: `__proto__` as an own key, as a request body has it.
  withProtoFile.workspace = JSON.parse('{"__proto__":"kept","notes.md":"notes"}');

  async function expectKept(service: Service, readFile: (runId: string) => Promise<string | undefined>) {
    const scenario = buildScenario(withProtoFile);
    expect(Object.entries(scenario.workspace)).toEqual([
      ["__proto__", "kept"],
      ["notes.md", "notes"],
    ]);
    const { runId, settled } = await service.startRun(scenario);
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const waiting = await service.getReport(runId);
    expect(waiting?.steps[0]?.calls.map((call) => call.result)).toEqual([
      expect.objectContaining({ content: "kept" }),
      expect.objectContaining({ files: ["__proto__", "notes.md"] }),
      null,
    ]);
    const decided = await service.decide(runId, {
      approve: true,
      turnDigest: waiting?.pending?.turnDigest ?? "",
      actor: "ada",
      actorId: null,
    });
    expect(decided.status).toBe("COMPLETED");
    const report = await service.getReport(runId);
    expect(report?.steps[1]?.calls[0]?.result).toMatchObject({ content: "changed" });
    expect(await readFile(runId)).toBe("changed");
    // The recorded run replays with the file it started with.
    const exported = await service.exportScenario(runId);
    expect(Object.entries(exported?.scenario.workspace ?? {}).sort()).toEqual([
      ["__proto__", "kept"],
      ["notes.md", "notes"],
    ]);
  }

  it("is kept, read, listed and written on the in-memory store", async () => {
    const harness = openMemoryHarness();
    await expectKept(harness.host, async (runId) =>
      harness.host.toolContext(runId).workspace.read("__proto__"),
    );
  });

  it(`is kept, read, listed and written on ${testDriverName}`, async () => {
    const harness = await openScenarioHarness();
    try {
      await expectKept(harness.service, (runId) => harness.service.readWorkspaceFile(runId, "__proto__"));
    } finally {
      await harness.close();
    }
  });
});
