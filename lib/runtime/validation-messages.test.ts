import { describe, expect, it } from "vitest";
import { validateScenario } from "./index";

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
