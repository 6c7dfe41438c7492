import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentReportInputSchema, formatIssuePath, validateScenario } from "./index";

const SCENARIO = { name: "plain words", model: { kind: "scripted", turns: [] } };

function messagesFor(patch: Record<string, unknown>) {
  const result = validateScenario({ ...SCENARIO, ...patch });
  if (result.ok) throw new Error("expected the scenario to be refused");
  return result.issues.map((issue) => `${issue.path}: ${issue.message}`);
}

describe("validation messages say what is wrong in plain words", () => {
  it.each([
    [{ limits: { maxParallelToolCalls: 2.5 } }, "limits.maxParallelToolCalls: must be a whole number"],
    [{ limits: { maxParallelToolCalls: "8" } }, "limits.maxParallelToolCalls: must be a number"],
    [{ limits: { maxParallelToolCalls: 0 } }, "limits.maxParallelToolCalls: must be more than 0"],
    [{ limits: { maxRepairAttempts: 1000 } }, "limits.maxRepairAttempts: must be at most 100"],
    [{ name: 5 }, "name: must be text (a JSON string)"],
    [{ name: undefined }, "name: is required"],
    [{ tools: "read_file" }, "tools: must be a list (a JSON array)"],
    [{ model: { kind: "gpt" } }, 'model.kind: must be one of "scripted", "openai-compatible", "agent"'],
    [{ colour: "blue" }, ': has a field this format does not have: "colour"'],
  ])("%j → %s", (patch, expected) => {
    expect(messagesFor(patch)).toContain(expected);
  });

  it("never shows zod's own wording", () => {
    const all = [
      { limits: { maxParallelToolCalls: 2.5 } },
      { name: 5 },
      { model: { kind: "gpt" } },
      { extra: true },
      { model: { kind: "scripted", turns: "x" } },
    ].flatMap(messagesFor);
    for (const message of all)
      expect(message).not.toMatch(/Invalid input|expected \w+, received|Too (small|big)/);
  });
});

describe("a value no shape of a plain union accepts is told what is wrong in the closest shape", () => {
  const messageOf = (schema: z.ZodType, value: unknown) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) throw new Error("expected the value to be refused");
    return parsed.error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`);
  };

  it("names the closest shape's issues with their paths: a failed report whose error is not an object", () => {
    expect(messageOf(agentReportInputSchema, { releaseToken: "r", ok: false, error: "boom" })).toEqual([
      ": does not match any of the accepted shapes (the closest: error must be an object)",
    ]);
  });

  it("takes the shape whose literal the value names, though another has fewer issues", () => {
    const report = { releaseToken: "r", ok: false, result: null, error: { code: 5, message: 5 } };
    expect(messageOf(agentReportInputSchema, report)).toEqual([
      ': does not match any of the accepted shapes (the closest: error.code must be text (a JSON string); error.message must be text (a JSON string); has a field this format does not have: "result")',
    ]);
  });

  it("paths are from the union's place, which the issue itself names", () => {
    const schema = z.object({ change: changeSchema });
    expect(messageOf(schema, { change: { role: { name: 5 } } })).toEqual([
      "change: does not match any of the accepted shapes (the closest: role.name must be text (a JSON string))",
    ]);
  });

  it("names at most five issues, and how many more there are", () => {
    const wide = z.union([
      z
        .object({ kind: z.literal("a"), ...Object.fromEntries(FIELDS.map((key) => [key, z.number()])) })
        .strict(),
      z.object({ kind: z.literal("b") }).strict(),
    ]);
    const [message] = messageOf(wide, { kind: "a", ...Object.fromEntries(FIELDS.map((key) => [key, "x"])) });
    expect(message).toBe(
      ": does not match any of the accepted shapes (the closest: f0 must be a number; f1 must be a number; f2 must be a number; f3 must be a number; f4 must be a number; and 2 more)",
    );
  });

  it("a union of kinds of value says each kind", () => {
    expect(messageOf(z.union([z.string(), z.number()]), true)).toEqual([
      ": must be text (a JSON string), or must be a number",
    ]);
  });
});

const FIELDS = ["f0", "f1", "f2", "f3", "f4", "f5", "f6"];
const changeSchema = z.union([
  z.object({ role: z.object({ name: z.string() }).strict() }).strict(),
  z.object({ isActive: z.boolean() }).strict(),
]);
