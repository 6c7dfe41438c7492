import { describe, expect, it } from "vitest";
import { formatIssuePath, InvalidScenarioError, parseScenarioJson, validateScenario } from "./parse-scenario";

const minimal = { name: "m", model: { kind: "scripted", turns: [] } };

describe("scenario validation (SPEC §8)", () => {
  it("fills in defaults for the optional fields", () => {
    const result = validateScenario(minimal);
    expect(result).toEqual({
      ok: true,
      scenario: { ...minimal, limits: {}, workspace: {}, approvals: {}, tools: [], decisions: [] },
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

  it("refuses an openai-compatible model without its prompt", () => {
    const result = validateScenario({
      name: "o",
      model: { kind: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", model: "m" },
    });
    expect(result.ok ? [] : result.issues.map((issue) => issue.path)).toEqual(["model.prompt"]);
  });

  it("parses JSON text or throws InvalidScenarioError listing the issues", () => {
    expect(parseScenarioJson(JSON.stringify(minimal)).name).toBe("m");
    expect(() => parseScenarioJson("{")).toThrow(InvalidScenarioError);
    expect(() => parseScenarioJson("{")).toThrow(/not valid JSON/);
    expect(() => parseScenarioJson("{}")).toThrow(/name: .*model: /s);
  });

  it("formats paths the way a person reads them", () => {
    expect(formatIssuePath(["model", "turns", 0, "calls", 12, "id"])).toBe("model.turns[0].calls[12].id");
    expect(formatIssuePath([])).toBe("");
  });
});
