/**
 * The shape of a tool (SPEC §2): what the model sees (name, description,
 * parameters), how the planner treats it (resource class, effect, approval)
 * and what runs (execute).
 */
import type { Effect, ResourceClass } from "../types";
import type { ToolContext } from "./workspace";

/**
 * A JSON Schema describing a tool's arguments. Always an object schema, since
 * arguments are a JSON object; other keywords pass through to the validator.
 */
export interface JsonSchemaObject {
  type: "object";
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean | Record<string, unknown>;
  [keyword: string]: unknown;
}

/**
 * Whether a call needs a human decision before it runs: `never`, `always`,
 * or a predicate over the call's parsed, schema-valid arguments. A predicate
 * must be pure and fast; the planner calls it once per call.
 */
export type ApprovalPolicy = "never" | "always" | ((args: Record<string, unknown>) => boolean);

/**
 * A registered tool. `execute` receives arguments that already parsed as a
 * JSON object and passed `parameters`; it acts only through `context`, throws
 * a `ToolError` for a failure that should become the call's error result, and
 * returns JSON data as the call's result.
 */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchemaObject;
  resourceClass: ResourceClass;
  effect: Effect;
  approval: ApprovalPolicy;
  /** How long a wait for a decision on one of its calls lasts before it expires; none when unset. */
  approvalTimeoutSeconds?: number;
  execute(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}
