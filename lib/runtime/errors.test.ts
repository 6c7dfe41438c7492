import { describe, expect, it } from "vitest";
import {
  InvalidPlanInputError,
  isRuntimeError,
  RuntimeError,
  ToolConfigurationError,
  ToolError,
} from "./errors";

describe("runtime errors", () => {
  it("carry a stable code, their class name and structured fields", () => {
    const toolError = new ToolError("no such file");
    expect(toolError).toBeInstanceOf(RuntimeError);
    expect(toolError).toMatchObject({ code: "tool_error", name: "ToolError", message: "no such file" });

    const configurationError = new ToolConfigurationError("deploy", "bad schema");
    expect(configurationError).toMatchObject({
      code: "invalid_tool_configuration",
      toolName: "deploy",
      name: "ToolConfigurationError",
    });

    expect(new InvalidPlanInputError("cap").code).toBe("invalid_plan_input");
    expect(new RuntimeError("custom_code", "m", { cause: toolError }).cause).toBe(toolError);
  });

  it("recognises runtime errors and nothing else", () => {
    expect(isRuntimeError(new ToolError("x"))).toBe(true);
    expect(isRuntimeError(new Error("x"))).toBe(false);
    expect(isRuntimeError({ code: "tool_error" })).toBe(false);
  });
});
