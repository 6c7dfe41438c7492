import { describe, expect, it } from "vitest";
import { ToolConfigurationError } from "../errors";
import { createToolRegistry } from "./tool-registry";

const toolWith = (name: string, properties: Record<string, unknown>) => ({
  name,
  description: "",
  approval: "never" as const,
  resourceClass: "pure_read" as const,
  effect: "READ" as const,
  parameters: { type: "object", properties },
});

describe("patterns in custom tool schemas", () => {
  it("keeps safe patterns working, in properties and patternProperties", () => {
    const registry = createToolRegistry({
      tools: [
        toolWith("lookup", { code: { type: "string", pattern: "^[A-Z]{2}-[0-9]{4}$" } }),
        {
          ...toolWith("tagged", {}),
          parameters: { type: "object", patternProperties: { "^x-[a-z]+$": {} } },
        },
      ],
    });
    expect(registry.validateArguments("lookup", { code: "AB-1234" })).toEqual([]);
    expect(registry.validateArguments("lookup", { code: "nope" })).not.toEqual([]);
  });

  it("refuses a catastrophic pattern by name before it can freeze the server", () => {
    const started = Date.now();
    let refusal: unknown;
    try {
      createToolRegistry({ tools: [toolWith("evil", { name: { type: "string", pattern: "^(a+)+$" } })] });
    } catch (error) {
      refusal = error;
    }
    expect(ToolConfigurationError.isInstance(refusal)).toBe(true);
    expect((refusal as ToolConfigurationError).toolName).toBe("evil");
    expect((refusal as Error).message).toMatch(
      /pattern "\^\(a\+\)\+\$" can take exponential or polynomial time/,
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("bounds the time spent checking however many hard patterns a tool set has", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 40 }, (_, index) => [
        `p${index}`,
        { type: "string", pattern: `(x${index}+x+)+y` },
      ]),
    );
    const started = Date.now();
    expect(() => createToolRegistry({ tools: [toolWith("many", properties)] })).toThrow(/pattern/);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
