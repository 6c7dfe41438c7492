/**
 * Errors of the runtime. Each failure is a class with a stable `code` and
 * structured fields; none of them knows about HTTP (the mapping from `code` to
 * a status lives outside the runtime, SPEC §5).
 */

/**
 * Base class of every error the runtime throws on purpose. `code` is stable
 * and machine-readable (snake_case); `message` is for humans and may change.
 * Subclasses fix `code` to a literal and add the fields a caller needs to act
 * on the failure without parsing the message.
 */
export class RuntimeError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    // Subclasses inherit this, so `name` always shows the concrete class in logs.
    this.name = new.target.name;
  }
}

/**
 * A tool's own failure (missing file, escaping path, aborted, a scripted
 * error). The executor turns it into an error result for that one call; it
 * never fails the run. Its `message` is shown to the model verbatim, so it
 * names the offending input and never reveals host details.
 */
export class ToolError extends RuntimeError {
  declare readonly code: "tool_error";

  constructor(message: string, options?: { cause?: unknown }) {
    super("tool_error", message, options);
  }
}

/**
 * A tool set that cannot be built: a custom tool reusing a built-in name, a
 * duplicate name, an invalid declaration or JSON Schema, or an approval
 * override naming an unknown tool. Thrown by `createToolRegistry`, before any
 * run starts. `toolName` is the tool the problem is about.
 */
export class ToolConfigurationError extends RuntimeError {
  declare readonly code: "invalid_tool_configuration";
  readonly toolName: string;

  constructor(toolName: string, message: string, options?: { cause?: unknown }) {
    super("invalid_tool_configuration", message, options);
    this.toolName = toolName;
  }
}

/**
 * A programming error in the input of the planner: limits that are not
 * positive integers, or a batch whose `batchIndex` values are not distinct
 * non-negative integers. Never caused by model output (the planner reports
 * model mistakes as plan problems instead).
 */
export class InvalidPlanInputError extends RuntimeError {
  declare readonly code: "invalid_plan_input";

  constructor(message: string) {
    super("invalid_plan_input", message);
  }
}

/** True when `value` is a `RuntimeError` (of any subclass). */
export function isRuntimeError(value: unknown): value is RuntimeError {
  return value instanceof RuntimeError;
}
