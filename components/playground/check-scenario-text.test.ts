// As in the browser (instrumentation-client.ts), before zod builds any schema.
import "@/lib/zod-without-eval";
import { afterEach, describe, expect, it } from "vitest";
import { validateScenario } from "@/lib/runtime";
import { checkScenarioText } from "./check-scenario-text";

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
    );
    expect(attempts).toEqual([]);
    expect(check).toMatchObject({ ok: true });
    const problem = checkScenarioText(withCustomTool({ type: "object" }, "not a name"));
    expect(attempts).toEqual([]);
    expect(problem.ok).toBe(false);
  });

  it("leaves compiling a custom schema to the server, which refuses one that does not compile by its path", () => {
    const text = withCustomTool({ type: "object", properties: { q: { $ref: "#/definitions/missing" } } });
    expect(checkScenarioText(text)).toMatchObject({ ok: true });
    expect(validateScenario(JSON.parse(text))).toMatchObject({
      ok: false,
      issues: [expect.objectContaining({ path: "tools[0]" })],
    });
  });
});
