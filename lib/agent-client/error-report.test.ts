import { describe, expect, it } from "vitest";
import { agentReportInputSchema } from "../runtime/agent/agent-schemas";
import { errorReport } from "./error-report";

const thrown = (message: string, code: unknown) => Object.assign(new Error(message), { code });

/** The report as the server checks it: the client's copy of the rule must never send what it refuses. */
const serverTakes = (error: ReturnType<typeof errorReport>) =>
  agentReportInputSchema.safeParse({ releaseToken: "r", ok: false, error }).success;

describe("a thrown error's report", () => {
  it("puts Node's and libraries' codes in the server's snake_case form", () => {
    const cases: [string, string][] = [
      ["ENOENT", "enoent"],
      ["ECONNREFUSED", "econnrefused"],
      ["ERR_INVALID_ARG_TYPE", "err_invalid_arg_type"],
      ["auth/user-not-found", "auth_user_not_found"],
      ["Rate Limit -- Exceeded!", "rate_limit_exceeded"],
      ["_private", "private"],
      ["404_not_found", "not_found"],
      ["tool_timeout", "tool_timeout"],
    ];
    for (const [code, expected] of cases) {
      const report = errorReport(thrown("it broke", code));
      expect(report, code).toEqual({ code: expected, message: "it broke" });
      expect(serverTakes(report), code).toBe(true);
    }
  });

  it("cuts a long code to the server's 64 characters", () => {
    const report = errorReport(thrown("it broke", `E${"X".repeat(99)}`));
    expect(report.code).toBe(`e${"x".repeat(63)}`);
    expect(serverTakes(report)).toBe(true);
  });

  it("keeps a code with no snake_case form at the head of the message instead of dropping it", () => {
    expect(errorReport(thrown("duplicate key", "23505"))).toEqual({ message: "[23505] duplicate key" });
    expect(errorReport(thrown("Not Found", 404))).toEqual({ message: "[404] Not Found" });
    expect(errorReport(thrown("", "--"))).toEqual({ message: "[--] failed" });
    expect(serverTakes(errorReport(thrown("Not Found", 404)))).toBe(true);
  });

  it("sends the message alone when there is no code to keep", () => {
    expect(errorReport(new Error("it broke"))).toEqual({ message: "it broke" });
    expect(errorReport(thrown("it broke", ""))).toEqual({ message: "it broke" });
    expect(errorReport(thrown("it broke", { nested: true }))).toEqual({ message: "it broke" });
    expect(errorReport("a thrown string")).toEqual({ message: "a thrown string" });
  });

  it("reads a thrown object's own code and message, and shows any other object as JSON", () => {
    expect(errorReport({ code: "E_TIMEOUT", message: "timed out" })).toEqual({
      code: "e_timeout",
      message: "timed out",
    });
    expect(errorReport({ status: 503 })).toEqual({ message: '{"status":503}' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(errorReport(cyclic)).toEqual({ message: "[object Object]" });
    expect(errorReport(null)).toEqual({ message: "null" });
  });

  it("keeps the message within the server's 10,000 characters, the code's prefix included", () => {
    const report = errorReport(thrown("x".repeat(20_000), 500));
    expect(report.message).toHaveLength(10_000);
    expect(report.message.startsWith("[500] x")).toBe(true);
    expect(serverTakes(report)).toBe(true);
  });
});
