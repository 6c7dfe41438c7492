import { describe, expect, it } from "vitest";
import {
  InvalidPlanInputError,
  isRuntimeError,
  PolicyRefusedError,
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

  it("says where each policy problem is: its line, or the document as a whole, never line 0", () => {
    const refused = new PolicyRefusedError([
      { line: 0, path: "", message: "must be a mapping with a `rules` list" },
      { line: 3, path: "rules[0].when", message: "does not compile" },
    ]);
    expect(refused.message).toBe(
      "The policy was refused:\n- the document: must be a mapping with a `rules` list\n- line 3: rules[0].when does not compile",
    );
  });

  it("recognises runtime errors and nothing else", () => {
    expect(isRuntimeError(new ToolError("x"))).toBe(true);
    expect(isRuntimeError(new Error("x"))).toBe(false);
    expect(isRuntimeError({ code: "tool_error" })).toBe(false);
  });
});

describe("recognising errors across copies of the runtime", () => {
  // Next compiles each route and action bundle with its own copy of these
  // classes; an error thrown by one copy must still be recognised by another.
  it("isInstance recognises an error made by another copy of the module, by class and ancestry", async () => {
    const secondCopy: string = "./errors?second-copy"; // a query string makes the loader evaluate the file again
    const otherCopy = (await import(/* @vite-ignore */ secondCopy)) as typeof import("./errors");
    expect(otherCopy.ToolError).not.toBe(ToolError);

    const fromOtherCopy = new otherCopy.ToolError("no such file");
    expect(fromOtherCopy instanceof ToolError).toBe(false); // what broke the error table
    expect(ToolError.isInstance(fromOtherCopy)).toBe(true);
    expect(RuntimeError.isInstance(fromOtherCopy)).toBe(true);
    expect(isRuntimeError(fromOtherCopy)).toBe(true);
    expect(ToolConfigurationError.isInstance(fromOtherCopy)).toBe(false);
    expect(fromOtherCopy.name).toBe("ToolError");
  });

  it("a look-alike object with the same code is not an error of the runtime", () => {
    expect(ToolError.isInstance({ code: "tool_error", name: "ToolError", message: "x" })).toBe(false);
    expect(ToolError.isInstance(null)).toBe(false);
    expect(ToolError.isInstance("tool_error")).toBe(false);
  });
});
