/**
 * The shape of a tool (docs/scenario-format.md#custom-tools): what the model sees (name, description,
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
  /**
   * A tool defined outside the playground (an MCP server's) has a
   * fingerprint: a hash of its definition as it was listed for this worker.
   * Each call records it when planned, the turn digest covers it, and the
   * call is sent only if the definition is still the same right before.
   */
  fingerprint?: string;
  /** Reads the definition afresh, right before a call is sent: its fingerprint now, or null when the tool is gone. */
  currentFingerprint?(signal: AbortSignal): Promise<string | null>;
  /**
   * What its schema cannot say about valid arguments (a file tool's path), checked after the schema
   * and before the call is planned: each problem refuses the call as a schema's would.
   */
  checkArguments?(args: Record<string, unknown>): string[];
  /** Where a tool defined elsewhere comes from, shown to the approver with its definition. */
  origin?: ToolOrigin;
  execute(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}

/** Where a tool defined outside the playground comes from: an MCP server the operator configured. */
export interface ToolOrigin {
  kind: "mcp";
  /** The server's id (its tools' name prefix). */
  server: string;
  trust: "trusted" | "untrusted";
  /** The tool's own name on the server. */
  serverToolName: string;
  /** The server's annotations (hints it gives about itself), as listed. */
  annotations: Record<string, unknown> | null;
  outputSchema: unknown;
  /** How the playground classified it, in words. */
  basis: string;
}
