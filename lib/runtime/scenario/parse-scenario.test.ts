import { describe, expect, it } from "vitest";
import { formatIssuePath } from "../format-issue-path";
import { InvalidScenarioError, parseScenarioJson, validateScenario } from "./parse-scenario";

const minimal = { name: "m", model: { kind: "scripted", turns: [] } };

describe("scenario validation", () => {
  it("fills in defaults for the optional fields", () => {
    const result = validateScenario(minimal);
    expect(result).toEqual({
      ok: true,
      scenario: {
        ...minimal,
        limits: {},
        workspace: {},
        approvals: {},
        tools: [],
        decisions: [],
        executionPolicy: "barriers",
      },
    });
  });

  it("accepts raw string arguments exactly as emitted, even when they are not JSON", () => {
    const result = validateScenario({
      ...minimal,
      model: { kind: "scripted", turns: [{ calls: [{ name: "read_file", arguments: '{"path": "a"' }] }] },
    });
    expect(
      result.ok &&
        result.scenario.model.kind === "scripted" &&
        result.scenario.model.turns[0]?.calls[0]?.arguments,
    ).toBe('{"path": "a"');
  });

  it("keeps MCP servers' tool names and approvals to the operator: no custom tool named server__tool, no approval naming one", () => {
    const tool = {
      description: "d",
      resourceClass: "write",
      effect: "READ",
      approval: "never",
      parameters: { type: "object" },
    };
    const named = validateScenario({ ...minimal, tools: [{ ...tool, name: "memory__create_entities" }] });
    expect(named.ok ? [] : named.issues).toContainEqual({
      path: "tools[0].name",
      message: "must not contain '__' (MCP servers' tools are named so)",
    });
    const approved = validateScenario({
      ...minimal,
      mcpServers: ["memory"],
      approvals: { memory__create_entities: "never" },
    });
    expect(approved.ok ? [] : approved.issues.map((issue) => issue.path)).toEqual([
      "approvals.memory__create_entities",
    ]);
  });

  it("names the JSON path of every problem", () => {
    const result = validateScenario({
      name: "",
      limits: { maxParallelToolCalls: 0 },
      approvals: { write_file: "sometimes" },
      tools: [{ name: "t", resourceClass: "disk", effect: "READ" }],
      model: { kind: "scripted", turns: [{ calls: [{ arguments: {} }] }] },
      decisions: [{ approve: "yes" }],
    });
    expect(result.ok).toBe(false);
    const paths = result.ok ? [] : result.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "name",
        "limits.maxParallelToolCalls",
        "approvals.write_file",
        "tools[0].resourceClass",
        "model.turns[0].calls[0].name",
        "decisions[0].approve",
      ]),
    );
  });

  it("caps a new scenario's name at 200 characters, in the playground's check and on the server alike", () => {
    expect(validateScenario({ ...minimal, name: "n".repeat(200) }).ok).toBe(true);
    for (const compileSchemas of [true, false]) {
      expect(validateScenario({ ...minimal, name: "n".repeat(201) }, { compileSchemas })).toEqual({
        ok: false,
        issues: [{ path: "name", message: "at most 200 characters" }],
      });
    }
    expect(() => parseScenarioJson(JSON.stringify({ ...minimal, name: "n".repeat(201) }))).toThrow(
      "Invalid scenario: name: at most 200 characters",
    );
  });

  it("refuses unknown keys so a typo is not silently ignored", () => {
    const result = validateScenario({ ...minimal, decision: [] });
    expect(result.ok ? [] : result.issues).toEqual([
      { path: "", message: expect.stringContaining('"decision"') },
    ]);
  });

  it("refuses two custom tools with one name", () => {
    const tool = { name: "deploy", resourceClass: "write", effect: "NON_IDEMPOTENT_WRITE" };
    const result = validateScenario({ ...minimal, tools: [tool, tool] });
    expect(result.ok ? [] : result.issues).toEqual([
      { path: "tools[1].name", message: 'duplicate tool name "deploy"' },
    ]);
  });

  it("refuses what the runtime would refuse at start: escaping workspace paths and unbuildable tools", () => {
    const issuesOf = (input: object) => {
      const result = validateScenario({ ...minimal, ...input });
      return result.ok ? [] : result.issues;
    };
    expect(issuesOf({ workspace: { "../etc/passwd": "x", "ok.txt": "y" } })).toEqual([
      { path: 'workspace["../etc/passwd"]', message: expect.stringContaining("escapes the workspace") },
    ]);
    expect(issuesOf({ approvals: { teleport: "always" } })).toEqual([
      { path: "approvals.teleport", message: expect.stringContaining('"teleport"') },
    ]);
    const badSchema = {
      name: "t",
      resourceClass: "write",
      effect: "READ",
      parameters: { type: "object", properties: { a: { type: "strin" } } },
    };
    expect(issuesOf({ tools: [badSchema] })).toEqual([
      { path: "tools[0]", message: expect.stringContaining('"t"') },
    ]);
    expect(
      issuesOf({ tools: [{ ...badSchema, name: "read_file", parameters: { type: "object" } }] }),
    ).toEqual([{ path: "tools[0]", message: expect.stringContaining("built-in") }]);
  });

  it("refuses an openai-compatible model without its prompt or the endpoint it names", () => {
    const result = validateScenario({ name: "o", model: { kind: "openai-compatible" } });
    expect(result.ok ? [] : result.issues.map((issue) => issue.path)).toEqual([
      "model.endpoint",
      "model.prompt",
    ]);
  });

  it("refuses what cannot be stored or nests too deep before the schema looks at it, naming where", () => {
    const withNul = validateScenario({ ...minimal, workspace: { "a.txt": "x\u0000y" } });
    expect(withNul.ok ? [] : withNul.issues).toEqual([
      { path: 'workspace["a.txt"]', message: expect.stringMatching(/NUL character/) },
    ]);
    const loneSurrogate = validateScenario({ ...minimal, name: "bad \ud800 name" });
    expect(loneSurrogate.ok ? [] : loneSurrogate.issues).toEqual([
      { path: "name", message: expect.stringMatching(/unpaired surrogate \(\\ud800\)/) },
    ]);
    let deep: unknown = {};
    for (let level = 0; level < 10_000; level += 1) deep = { deep };
    const tooDeep = validateScenario({ ...minimal, tools: [{ parameters: deep }] });
    expect(tooDeep.ok ? [] : tooDeep.issues[0]?.message).toBe("nests deeper than 64 levels");
    expect(() => parseScenarioJson(`${"[".repeat(10_000)}${"]".repeat(10_000)}`)).toThrow(
      /nests deeper than 64 levels/,
    );
  });

  it("parses JSON text or throws InvalidScenarioError listing the issues", () => {
    expect(parseScenarioJson(JSON.stringify(minimal)).name).toBe("m");
    expect(() => parseScenarioJson("{")).toThrow(InvalidScenarioError);
    expect(() => parseScenarioJson("{")).toThrow(/not valid JSON/);
    expect(() => parseScenarioJson("{}")).toThrow(/name: .*model: /s);
  });

  it("throws InvalidScenarioError naming the first 20 issues and how many more, as the HTTP API answers an agent's run", () => {
    const workspace = Object.fromEntries(Array.from({ length: 1_000 }, (_, index) => [`../f${index}`, "x"]));
    let thrown: unknown;
    try {
      parseScenarioJson(JSON.stringify({ ...minimal, workspace }));
    } catch (error) {
      thrown = error;
    }
    if (!InvalidScenarioError.isInstance(thrown)) throw new Error("expected InvalidScenarioError");
    expect(thrown.issues).toHaveLength(21);
    expect(thrown.issues[0]?.path).toBe('workspace["../f0"]');
    expect(thrown.issues[20]).toEqual({ path: "", message: "… and 980 more issues" });
    expect(thrown.message).toMatch(/^Invalid scenario: workspace\["\.\.\/f0"\]: .*; … and 980 more issues$/);
    expect(thrown.message.length).toBeLessThan(4_000);
  });

  it("keeps a long workspace key whole in its issue's path, so the playground's editor can find it", () => {
    const path = `../${"deep/".repeat(20)}escape.md`; // it leaves the workspace
    const result = validateScenario({ ...minimal, workspace: { [path]: "x" } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => issue.path)).toEqual([`workspace[${JSON.stringify(path)}]`]);
  });

  it("formats paths the way a person reads them", () => {
    expect(formatIssuePath(["model", "turns", 0, "calls", 12, "id"])).toBe("model.turns[0].calls[12].id");
    expect(formatIssuePath([])).toBe("");
    // A key is said back to whoever sent it, and may be a megabyte: cut, the cut marked.
    expect(formatIssuePath(["workspace", "a".repeat(64)])).toBe(`workspace.${"a".repeat(64)}`);
    expect(formatIssuePath(["workspace", "a".repeat(1_000_000)])).toBe(`workspace["${"a".repeat(64)}…"]`);
    // Never half of an emoji: its pair of UTF-16 units stays whole or goes.
    expect(formatIssuePath([`${"a".repeat(62)}😀`])).toBe(`["${"a".repeat(62)}😀"]`);
    expect(formatIssuePath([`${"a".repeat(63)}😀`])).toBe(`["${"a".repeat(63)}…"]`);
  });
});
