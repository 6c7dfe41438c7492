import { describe, expect, it } from "vitest";
import { agentReportInputSchema, formatIssuePath } from "../index";

const failedWithCode = (code: string) => ({
  releaseToken: "r",
  ok: false,
  error: { code, message: "it broke" },
});

function issuesOf(value: unknown): string[] {
  const parsed = agentReportInputSchema.safeParse(value);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`);
}

describe("a reported error's code", () => {
  it("takes a snake_case code of up to 64 characters", () => {
    expect(issuesOf(failedWithCode("tool_timeout"))).toEqual([]);
    expect(issuesOf(failedWithCode(`a${"b".repeat(63)}`))).toEqual([]);
  });

  it("tells a well-formed code that is too long its length limit, not that its form is wrong", () => {
    expect(issuesOf(failedWithCode(`a${"b".repeat(64)}`))).toEqual([
      "error.code: must be at most 64 characters long",
    ]);
  });

  it("tells a code not in snake_case its form, and one that is both wrong each", () => {
    expect(issuesOf(failedWithCode("ToolTimeout"))).toEqual(["error.code: must be a snake_case code"]);
    expect(issuesOf(failedWithCode("X".repeat(65)))).toEqual([
      "error.code: must be at most 64 characters long",
      "error.code: must be a snake_case code",
    ]);
  });
});
