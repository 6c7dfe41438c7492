/**
 * Custom tools declared by a scenario (the `tools` entries of docs/scenario-format.md#custom-tools): a
 * scripted executor that waits `delayMs`, then fails with `error` or returns
 * `result`. Used to play with classes, effects and approvals without code.
 */
import { z } from "zod";
import { ToolConfigurationError, ToolError } from "../errors";
import { EFFECTS, RESOURCE_CLASSES } from "../types";
import type { JsonSchemaObject, ToolDefinition } from "./tool-definition";
import { throwIfAborted, waitForDelay } from "./wait-for-delay";

/** Tool names a model API accepts (the OpenAI function-name rule). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Zod schema of one scenario `tools` entry. Unknown fields are dropped
 * (scenario files may grow fields). `parameters` must be an object schema;
 * whether it is a valid JSON Schema is checked when the registry compiles it.
 */
/** `approvalTimeoutSeconds` of a scenario or a tool: whole seconds, one to a week. */
export const approvalTimeoutSchema = z.number().int().min(1).max(604_800);

export const customToolDeclarationSchema = z
  .object({
    name: z
      .string()
      .regex(TOOL_NAME_PATTERN, "must be 1-64 letters, digits, '_' or '-'")
      // `server__tool` names belong to the operator's MCP servers.
      .refine((name) => !name.includes("__"), "must not contain '__' (MCP servers' tools are named so)"),
    description: z.string().default(""),
    resourceClass: z.enum(RESOURCE_CLASSES),
    effect: z.enum(EFFECTS),
    approval: z.enum(["always", "never"]).default("never"),
    parameters: z
      .record(z.string(), z.unknown())
      .default({ type: "object" })
      .refine((schema) => schema.type === "object", 'must be a JSON Schema with type "object"'),
    result: z.unknown().optional(),
    error: z.string().nullable().optional(),
    delayMs: z.number().int().min(0).max(600_000).optional(),
    /** A wait for a decision on one of its calls expires after this long (it overrides the scenario's). */
    approvalTimeoutSeconds: approvalTimeoutSchema.optional(),
  })
  .strict();

/** One scenario `tools` entry, as parsed by `customToolDeclarationSchema`. */
export type CustomToolDeclaration = z.infer<typeof customToolDeclarationSchema>;

/**
 * Builds the `ToolDefinition` of a declaration, or throws a
 * `ToolConfigurationError` naming the tool and every invalid field. The
 * executor waits `delayMs` (aborting with `ToolError("aborted")` when the
 * signal fires), then throws `ToolError(error)` if `error` is a non-empty
 * string, else returns a fresh copy of `result ?? {}`. Schema compilation is
 * the registry's job, not this function's.
 */
export function createCustomTool(declaration: unknown): ToolDefinition {
  const parsed = customToolDeclarationSchema.safeParse(declaration);
  if (!parsed.success) {
    const toolName = readDeclaredName(declaration);
    const details = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "(declaration)"}: ${issue.message}`,
    );
    throw new ToolConfigurationError(
      toolName,
      `custom tool ${JSON.stringify(toolName)} is invalid: ${details.join("; ")}`,
    );
  }
  const { name, description, resourceClass, effect, approval, error, delayMs, approvalTimeoutSeconds } =
    parsed.data;
  const result = structuredClone(parsed.data.result ?? {});
  return {
    name,
    description,
    parameters: parsed.data.parameters as JsonSchemaObject,
    resourceClass,
    effect,
    approval,
    ...(approvalTimeoutSeconds === undefined ? {} : { approvalTimeoutSeconds }),
    async execute(_args, context) {
      throwIfAborted(context.signal);
      if (delayMs !== undefined && delayMs > 0) {
        await waitForDelay(delayMs, context.signal);
      }
      if (typeof error === "string" && error !== "") {
        throw new ToolError(error);
      }
      return structuredClone(result);
    },
  };
}

function readDeclaredName(declaration: unknown): string {
  if (typeof declaration === "object" && declaration !== null && "name" in declaration) {
    const { name } = declaration as { name: unknown };
    if (typeof name === "string") {
      return name;
    }
  }
  return "(unnamed)";
}
