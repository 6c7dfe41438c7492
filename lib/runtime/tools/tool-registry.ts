/**
 * The tool set of one run: the built-ins plus a scenario's custom tools, with
 * approval overrides applied and every argument schema compiled once.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { ToolConfigurationError } from "../errors";
import { EFFECTS, type Effect, RESOURCE_CLASSES } from "../types";
import { BUILT_IN_TOOL_NAMES, BUILT_IN_TOOLS } from "./built-in-tools";
import { type CustomToolDeclaration, createCustomTool, TOOL_NAME_PATTERN } from "./custom-tool-declaration";
import { formatSchemaErrors } from "./format-schema-errors";
import { createSafeRegExpFactory } from "./safe-reg-exp";
import type { ToolDefinition } from "./tool-definition";

/** Options of `createToolRegistry`; both mirror the scenario fields of docs/scenario-format.md. */
export interface ToolRegistryOptions {
  /**
   * Tools defined in code (for example with a predicate approval policy),
   * added after the built-ins in this order. Same naming rules as `tools`.
   */
  definitions?: readonly ToolDefinition[];
  /** Custom tools declared by a scenario, added after `definitions` in this order. */
  tools?: readonly CustomToolDeclaration[];
  /** Approval policy overrides by tool name, for built-in and custom tools alike. */
  approvals?: Readonly<Record<string, "always" | "never">>;
  /**
   * False: argument schemas are compiled at the first `validateArguments`, not
   * now, so a schema that does not compile is not found here (a browser page
   * checks a scenario this way: Ajv compiles schemas to code, which its
   * Content-Security-Policy forbids). Default true.
   */
  compileSchemas?: boolean;
}

/** Looks tools up by name. Immutable once created. */
export interface ToolRegistry {
  /** The tool named `name`, or `undefined`. */
  get(name: string): ToolDefinition | undefined;
  /**
   * Every tool: built-ins in the order of docs/scenario-format.md#built-in-tools, then
   * `definitions`, then custom tools, each in given order.
   */
  list(): ToolDefinition[];
  /** The tool's effect; an unknown name is `NON_IDEMPOTENT_WRITE` (fail closed). */
  effectFor(name: string): Effect;
  /**
   * Human messages for everything wrong with `args` under the tool's schema,
   * each naming the field ("path: is required"); empty when valid. An unknown
   * tool gives one message saying so. Never coerces or mutates `args`.
   */
  validateArguments(name: string, args: unknown): string[];
}

/**
 * Builds a registry, or throws a `ToolConfigurationError` naming the tool when
 * a custom declaration or definition is invalid, reuses a built-in or earlier
 * name, has a JSON Schema that does not compile, or when an approval override
 * names an unknown tool or a policy other than "always"/"never".
 *
 * Schemas are compiled with Ajv (JSON Schema draft-07, all errors reported,
 * unknown keywords ignored, `format` not checked, no type coercion).
 */
export function createToolRegistry(options: ToolRegistryOptions = {}): ToolRegistry {
  const tools = new Map<string, ToolDefinition>();
  for (const tool of BUILT_IN_TOOLS) {
    tools.set(tool.name, tool);
  }
  const customTools = [
    ...(options.definitions ?? []).map(assertValidDefinition),
    ...(options.tools ?? []).map(createCustomTool),
  ];
  for (const tool of customTools) {
    if (BUILT_IN_TOOL_NAMES.has(tool.name)) {
      throw new ToolConfigurationError(
        tool.name,
        `custom tool ${JSON.stringify(tool.name)} reuses the name of a built-in tool`,
      );
    }
    if (tools.has(tool.name)) {
      throw new ToolConfigurationError(
        tool.name,
        `custom tool ${JSON.stringify(tool.name)} is declared more than once`,
      );
    }
    tools.set(tool.name, Object.freeze({ ...tool }));
  }
  applyApprovalOverrides(tools, options.approvals ?? {});
  let validators = options.compileSchemas === false ? null : compileValidators(tools);

  return {
    get(name) {
      return tools.get(name);
    },
    list() {
      return [...tools.values()];
    },
    effectFor(name) {
      return tools.get(name)?.effect ?? "NON_IDEMPOTENT_WRITE";
    },
    validateArguments(name, args) {
      validators ??= compileValidators(tools);
      const validate = validators.get(name);
      if (validate === undefined) {
        return [`tool ${JSON.stringify(name)} is not registered`];
      }
      if (!validate(args)) return formatSchemaErrors(validate.errors);
      return tools.get(name)?.checkArguments?.(args as Record<string, unknown>) ?? [];
    },
  };
}

function assertValidDefinition(tool: ToolDefinition): ToolDefinition {
  const name = typeof tool.name === "string" ? tool.name : "(unnamed)";
  const problems: string[] = [];
  if (!TOOL_NAME_PATTERN.test(name)) {
    problems.push("name: must be 1-64 letters, digits, '_' or '-'");
  }
  if (!RESOURCE_CLASSES.includes(tool.resourceClass)) {
    problems.push(`resourceClass: must be one of ${RESOURCE_CLASSES.join(", ")}`);
  }
  if (!EFFECTS.includes(tool.effect)) {
    problems.push(`effect: must be one of ${EFFECTS.join(", ")}`);
  }
  if (tool.approval !== "always" && tool.approval !== "never" && typeof tool.approval !== "function") {
    problems.push('approval: must be "always", "never" or a predicate');
  }
  if (tool.parameters?.type !== "object") {
    problems.push('parameters: must be a JSON Schema with type "object"');
  }
  if (typeof tool.execute !== "function") {
    problems.push("execute: must be a function");
  }
  if (problems.length > 0) {
    throw new ToolConfigurationError(name, `tool ${JSON.stringify(name)} is invalid: ${problems.join("; ")}`);
  }
  return tool;
}

function applyApprovalOverrides(
  tools: Map<string, ToolDefinition>,
  approvals: Readonly<Record<string, string>>,
): void {
  for (const [name, approval] of Object.entries(approvals)) {
    const tool = tools.get(name);
    if (tool === undefined) {
      throw new ToolConfigurationError(
        name,
        `approval override names an unknown tool ${JSON.stringify(name)}`,
      );
    }
    if (approval !== "always" && approval !== "never") {
      throw new ToolConfigurationError(
        name,
        `approval override for ${JSON.stringify(name)} must be "always" or "never", got ${JSON.stringify(approval)}`,
      );
    }
    if (tool.origin && approval === "never") {
      // Only the operator, who configured the tool's server, says which of its tools may skip approval.
      throw new ToolConfigurationError(
        name,
        `approval override for ${JSON.stringify(name)} cannot be "never": it is a tool of the MCP server "${tool.origin.server}", whose approvals only the operator sets`,
      );
    }
    // A copy: built-in definitions are shared by every registry.
    tools.set(name, Object.freeze({ ...tool, approval }));
  }
}

// Built-in schemas never change, so their validators are compiled once per
// process and shared; creating an Ajv instance and compiling costs ~20 ms.
let builtInValidators: ReadonlyMap<string, ValidateFunction> | undefined;

function createSchemaCompiler(): Ajv {
  return new Ajv({
    allErrors: true,
    strict: false,
    validateFormats: false,
    logger: false,
    code: { regExp: createSafeRegExpFactory() },
  });
}

// A run builds its registry at start, at every decision and on recovery: the same custom tools
// each time. Their validators are kept by the exact tool set, the most recent few hundred sets.
const customValidatorCache = new Map<string, Map<string, ValidateFunction>>();
const CUSTOM_VALIDATOR_CACHE_SIZE = 256;

function compileValidators(tools: Map<string, ToolDefinition>): Map<string, ValidateFunction> {
  builtInValidators ??= compileToolSchemas(createSchemaCompiler(), BUILT_IN_TOOLS);
  const customTools = [...tools.values()].filter((tool) => !BUILT_IN_TOOL_NAMES.has(tool.name));
  if (customTools.length === 0) return new Map(builtInValidators);
  const key = JSON.stringify(customTools.map((tool) => [tool.name, tool.parameters]));
  let customValidators = customValidatorCache.get(key);
  if (!customValidators) {
    // A fresh compiler per tool set, so two scenarios' schemas (and their `$id`s) never meet.
    customValidators = compileToolSchemas(createSchemaCompiler(), customTools);
    customValidatorCache.set(key, customValidators);
    const oldest = customValidatorCache.keys().next().value;
    if (customValidatorCache.size > CUSTOM_VALIDATOR_CACHE_SIZE && oldest !== undefined) {
      customValidatorCache.delete(oldest);
    }
  }
  return new Map([...builtInValidators, ...customValidators]);
}

function compileToolSchemas(ajv: Ajv, tools: readonly ToolDefinition[]): Map<string, ValidateFunction> {
  const validators = new Map<string, ValidateFunction>();
  for (const tool of tools) {
    try {
      validators.set(tool.name, ajv.compile(tool.parameters));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ToolConfigurationError(
        tool.name,
        `tool ${JSON.stringify(tool.name)} has an invalid JSON Schema: ${reason}`,
        { cause: error },
      );
    }
  }
  return validators;
}
