import { describe, expect, it, vi } from "vitest";
import { ToolConfigurationError } from "../errors";
import {
  countInlinePatternChecks,
  findSchemaPatterns,
  MAX_REMEMBERED_VERDICTS,
  PATTERN_CHECK_BUDGET_MS,
  readPatternVerdict,
  recordPatternCheck,
} from "./safe-reg-exp";
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
    // Which of the two it says depends on how far the checker got in its time (a loaded machine).
    expect((refusal as Error).message).toMatch(
      /pattern "\^\(a\+\)\+\$" (can take exponential or polynomial time|could not be proven safe in time)/,
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

describe("verdicts on patterns", () => {
  const pattern = (source: string) => ({ pattern: source, flags: "u" });

  it("are found for every pattern Ajv compiles, so compiling after they are recorded checks nothing here", () => {
    const parameters = {
      type: "object",
      properties: {
        code: { type: "string", pattern: "^[A-Z]{3}-[0-9]{5}$" },
        nested: { type: "array", items: { type: "string", pattern: "^n[0-9]+$" } },
        either: { anyOf: [{ type: "string", pattern: "^e[a-z]+$" }, { type: "number" }] },
      },
      patternProperties: { "^x-[a-z]{2,}$": { type: "string" } },
    };
    const found = findSchemaPatterns(parameters);
    expect(found.map((each) => each.pattern).sort()).toEqual(
      ["^[A-Z]{3}-[0-9]{5}$", "^n[0-9]+$", "^e[a-z]+$", "^x-[a-z]{2,}$"].sort(),
    );
    for (const each of found) recordPatternCheck(each, { safe: true, error: null, budgetMs: 250 });
    const before = countInlinePatternChecks();
    const registry = createToolRegistry({ tools: [{ ...toolWith("recorded", {}), parameters }] });
    expect(registry.validateArguments("recorded", { code: "ABC-12345", "x-ab": "y" })).toEqual([]);
    expect(countInlinePatternChecks()).toBe(before);
  });

  it("are kept for a refused pattern, so refusing it again costs no check", () => {
    const evil = { name: { type: "string", pattern: "^(b+)+c$" } };
    expect(() => createToolRegistry({ tools: [toolWith("evil", evil)] })).toThrow(/\^\(b\+\)\+c\$/);
    const before = countInlinePatternChecks();
    for (let attempt = 0; attempt < 20; attempt += 1) {
      expect(() => createToolRegistry({ tools: [toolWith(`evil${attempt}`, evil)] })).toThrow(
        /\^\(b\+\)\+c\$/,
      );
    }
    expect(countInlinePatternChecks()).toBe(before);
  });

  it("about the checker rather than the pattern pass after a few seconds", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const hurried = pattern("^(c+)+d$");
      recordPatternCheck(hurried, { safe: false, error: "timedOut", budgetMs: 10 });
      expect(readPatternVerdict(hurried)).toMatch(/could not be proven safe in time/);
      const busy = pattern("^busy$");
      recordPatternCheck(busy, { unchecked: "could not be checked now; try again" });
      expect(readPatternVerdict(busy)).toBe("could not be checked now; try again");
      const judged = pattern("^(e+)+f$");
      recordPatternCheck(judged, { safe: false, error: "timedOut", budgetMs: PATTERN_CHECK_BUDGET_MS });
      vi.advanceTimersByTime(6_000);
      expect(readPatternVerdict(hurried)).toBeUndefined();
      expect(readPatternVerdict(busy)).toBeUndefined();
      expect(readPatternVerdict(judged)).toMatch(/could not be proven safe in time/);
    } finally {
      vi.useRealTimers();
    }
  });

  it("are kept for the most recently used patterns, up to a bound", () => {
    const first = pattern("^first-kept$");
    recordPatternCheck(first, { safe: true, error: null, budgetMs: 250 });
    const oldest = pattern("^oldest$");
    recordPatternCheck(oldest, { safe: true, error: null, budgetMs: 250 });
    for (let index = 0; index < MAX_REMEMBERED_VERDICTS - 2; index += 1) {
      recordPatternCheck(pattern(`^filler-${index}$`), { safe: true, error: null, budgetMs: 250 });
      // Used all along: it stays while patterns used less recently go.
      if (index % 100 === 0) expect(readPatternVerdict(first)).toBeNull();
    }
    expect(readPatternVerdict(first)).toBeNull();
    recordPatternCheck(pattern("^one-more$"), { safe: true, error: null, budgetMs: 250 });
    expect(readPatternVerdict(oldest)).toBeUndefined();
    expect(readPatternVerdict(first)).toBeNull();
  });
});
