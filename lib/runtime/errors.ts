/**
 * Errors of the runtime. Each failure is a class with a stable `code` and
 * structured fields; none of them knows about HTTP (the mapping from `code` to
 * a status lives outside the runtime, lib/wire/error-table.ts).
 */

/**
 * Where an error keeps the brands of its class and every ancestor. A
 * `Symbol.for` key is the same in every copy of this module, so the brands
 * survive what `instanceof` does not: a server whose route bundles each
 * compiled their own copy of the runtime classes.
 */
const BRANDS = Symbol.for("tool-playground.runtime-error.brands");

interface BrandedClass {
  readonly brand: string;
}

/** The brands of a class and its ancestors up to `RuntimeError`, each declared with `static brand`. */
function brandsOf(errorClass: unknown): string[] {
  const brands: string[] = [];
  for (let current = errorClass; typeof current === "function"; current = Object.getPrototypeOf(current)) {
    if (Object.hasOwn(current, "brand")) brands.push((current as unknown as BrandedClass).brand);
  }
  return brands;
}

/**
 * Base class of every error the runtime throws on purpose. `code` is stable
 * and machine-readable (snake_case); `message` is for humans and may change.
 * Subclasses fix `code` to a literal, add the fields a caller needs to act on
 * the failure without parsing the message, and declare a `static brand`
 * (their name, spelled out so minification cannot change it).
 *
 * Recognise these errors with `SomeError.isInstance(value)`, never with
 * `instanceof`: the same module may be loaded more than once in one process
 * (Next compiles each route and action bundle separately), and an error
 * thrown by one copy is not an `instanceof` the other copy's class.
 */
export class RuntimeError extends Error {
  static readonly brand: string = "RuntimeError";
  readonly code: string;
  readonly [BRANDS]: readonly string[];

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this[BRANDS] = brandsOf(new.target);
    // Subclasses inherit this, so `name` always shows the concrete class in logs.
    this.name = this[BRANDS][0] ?? "RuntimeError";
  }

  /** True when `value` was made by this class or a subclass, by any copy of this module. */
  static isInstance<T>(this: BrandedClass & { prototype: T }, value: unknown): value is T {
    if (typeof value !== "object" || value === null) return false;
    const brands = (value as { [BRANDS]?: unknown })[BRANDS];
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class isInstance was called on, not always RuntimeError
    return Array.isArray(brands) && brands.includes(this.brand);
  }
}

/**
 * A tool's own failure (missing file, escaping path, aborted, a scripted
 * error). The executor turns it into an error result for that one call; it
 * never fails the run. Its `message` is shown to the model verbatim, so it
 * names the offending input and never reveals host details.
 */
export class ToolError extends RuntimeError {
  static override readonly brand: string = "ToolError";
  declare readonly code: "tool_error";

  /** The code the call's error records: `tool_error`, or one the tool gave (an agent's report, `interrupted`). */
  readonly outcomeCode: string;

  constructor(message: string, options?: { cause?: unknown; outcomeCode?: string }) {
    super("tool_error", message, options);
    this.outcomeCode = options?.outcomeCode ?? "tool_error";
  }

  /** The code a call that failed with `error` records (older copies of this class have no `outcomeCode`). */
  static codeOf(error: ToolError): string {
    return typeof error.outcomeCode === "string" ? error.outcomeCode : error.code;
  }
}

/**
 * A tool set that cannot be built: a custom tool reusing a built-in name, a
 * duplicate name, an invalid declaration or JSON Schema, or an approval
 * override naming an unknown tool. Thrown by `createToolRegistry`, before any
 * run starts. `toolName` is the tool the problem is about.
 */
export class ToolConfigurationError extends RuntimeError {
  static override readonly brand: string = "ToolConfigurationError";
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
  static override readonly brand: string = "InvalidPlanInputError";
  declare readonly code: "invalid_plan_input";

  constructor(message: string) {
    super("invalid_plan_input", message);
  }
}

/** A policy document refused at publish or backtest (docs/policies.md#checked-like-code): every problem, each with its line. */
export class PolicyRefusedError extends RuntimeError {
  static override readonly brand: string = "PolicyRefusedError";
  declare readonly code: "policy_refused";
  readonly problems: ReadonlyArray<{ line: number; path: string; message: string }>;

  constructor(problems: ReadonlyArray<{ line: number; path: string; message: string }>) {
    super(
      "policy_refused",
      `The policy was refused:\n${problems.map((problem) => `- ${whereInPolicy(problem)}: ${problem.path ? `${problem.path} ` : ""}${problem.message}`).join("\n")}`,
    );
    this.problems = problems;
  }
}

/** A problem's line, or the document as a whole (line 0: an empty document, one over the size limit). */
function whereInPolicy(problem: { line: number }): string {
  return problem.line > 0 ? `line ${problem.line}` : "the document";
}

/** True when `value` is a `RuntimeError` (of any subclass). */
export function isRuntimeError(value: unknown): value is RuntimeError {
  return RuntimeError.isInstance(value);
}

/**
 * A server that defines tools a scenario enables (an MCP server) could not be
 * listed, so the run was not started: it would have run without them.
 * `problems` names each server and why, without its address or secrets.
 */
export class ToolServerUnavailableError extends RuntimeError {
  static override readonly brand: string = "ToolServerUnavailableError";
  declare readonly code: "tool_server_unavailable";
  readonly problems: string[];
  constructor(problems: string[]) {
    super("tool_server_unavailable", `The run was not started: ${problems.join(" ")}`);
    this.problems = problems;
  }
}
