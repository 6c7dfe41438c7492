// As in the browser (instrumentation-client.ts), before zod builds any schema.
import "@/lib/zod-without-eval";
import { afterEach, describe, expect, it } from "vitest";
import { validateScenario } from "@/lib/runtime";
import { findPreset } from "@/lib/scenarios/scenario-presets";
import { checkScenarioText } from "./check-scenario-text";
import { buildPromptTemplate } from "./prompt-template";

const NOTHING_CONFIGURED = { modelEndpoints: [], mcpServers: [] };

// The playground checks the scenario in the browser, under a Content-Security-Policy without
// 'unsafe-eval': the check may not generate code (Ajv compiles schemas with `new Function`, zod
// probes for it). Here `Function` throws, as it does under that policy.
const originalFunction = globalThis.Function;
function forbidEval(): string[] {
  const attempts: string[] = [];
  globalThis.Function = new Proxy(originalFunction, {
    construct(_target, args) {
      attempts.push(String(args.at(-1)).slice(0, 80));
      throw new EvalError("Refused to evaluate a string as JavaScript (CSP)");
    },
    apply(_target, _this, args) {
      attempts.push(String(args.at(-1)).slice(0, 80));
      throw new EvalError("Refused to evaluate a string as JavaScript (CSP)");
    },
  });
  return attempts;
}
afterEach(() => {
  globalThis.Function = originalFunction;
});

const withCustomTool = (parameters: unknown, name = "lookup") =>
  JSON.stringify({
    name: "custom tool",
    tools: [{ name, resourceClass: "pure_read", effect: "READ", parameters }],
    model: {
      kind: "scripted",
      turns: [
        { calls: [{ name: "lookup", arguments: { q: "x" } }] },
        { calls: [{ name: "finish", arguments: { summary: "ok" } }] },
      ],
    },
  });

describe("checkScenarioText", () => {
  it("checks a scenario with custom tools without generating code", () => {
    const attempts = forbidEval();
    const check = checkScenarioText(
      withCustomTool({ type: "object", properties: { q: { type: "string" } } }),
      NOTHING_CONFIGURED,
    );
    expect(attempts).toEqual([]);
    expect(check).toMatchObject({ ok: true });
    const problem = checkScenarioText(withCustomTool({ type: "object" }, "not a name"), NOTHING_CONFIGURED);
    expect(attempts).toEqual([]);
    expect(problem.ok).toBe(false);
  });

  it("leaves compiling a custom schema to the server, which refuses one that does not compile by its path", () => {
    const scenario = withCustomTool({ type: "object", properties: { q: { $ref: "#/definitions/missing" } } });
    expect(checkScenarioText(scenario, NOTHING_CONFIGURED)).toMatchObject({ ok: true });
    expect(validateScenario(JSON.parse(scenario))).toMatchObject({
      ok: false,
      issues: [expect.objectContaining({ path: "tools[0]" })],
    });
  });
});

const text = (scenario: unknown) => `${JSON.stringify(scenario, null, 2)}\n`;

describe("checking the playground's scenario against what the server configured", () => {
  it("refuses the prompt template when the server has no model endpoint, as the server would", () => {
    const check = checkScenarioText(text(buildPromptTemplate("my-model")), NOTHING_CONFIGURED);
    expect(check.ok).toBe(false);
    expect(check.ok ? [] : check.issues).toEqual([
      {
        path: "model.endpoint",
        message:
          'no model endpoint named "my-model" is configured; the server has none (set PLAYGROUND_MODELS)',
      },
    ]);
    // The limit fields still edit the document.
    expect(check.document).toMatchObject({ name: "prompt a model" });
  });

  it("names the configured endpoints when the scenario names another", () => {
    const check = checkScenarioText(text(buildPromptTemplate("nope")), {
      modelEndpoints: ["local", "fake"],
      mcpServers: [],
    });
    expect(check.ok ? [] : check.issues).toEqual([
      {
        path: "model.endpoint",
        message: 'no model endpoint named "nope" is configured (configured: local, fake)',
      },
    ]);
  });

  it("accepts a configured endpoint", () => {
    const check = checkScenarioText(text(buildPromptTemplate("fake")), {
      modelEndpoints: ["fake"],
      mcpServers: [],
    });
    expect(check.ok).toBe(true);
  });

  it("refuses the MCP preset when its server is not configured, naming the list entry", () => {
    const preset = findPreset("mcp-memory-create-then-read")?.scenario;
    const refused = checkScenarioText(text(preset), NOTHING_CONFIGURED);
    expect(refused.ok ? [] : refused.issues).toEqual([
      {
        path: "mcpServers.0",
        message: 'no MCP server "memory" is configured; the server has none (set PLAYGROUND_MCP_SERVERS)',
      },
    ]);
    expect(checkScenarioText(text(preset), { modelEndpoints: [], mcpServers: ["memory"] }).ok).toBe(true);
  });

  it("lists the schema's problems first, and names only after the scenario is well formed", () => {
    const scenario = { ...buildPromptTemplate("nope"), limits: { maxParallelToolCalls: 0 } };
    const check = checkScenarioText(text(scenario), NOTHING_CONFIGURED);
    expect(check.ok ? [] : check.issues.map((issue) => issue.path)).toEqual(["limits.maxParallelToolCalls"]);
  });

  it("a scripted scenario needs nothing configured", () => {
    const preset = findPreset("write-then-read-back")?.scenario;
    expect(checkScenarioText(text(preset), NOTHING_CONFIGURED).ok).toBe(true);
  });
});
