/**
 * Public API of the runtime core. Framework-free: no Next.js, React, database
 * or `node:*` imports, so it runs in any JavaScript runtime with Web Crypto.
 * Test doubles of the ports are in "lib/runtime/testing".
 */

export { declaresWrite, isWriteEffect } from "./declares-write";
export {
  InvalidPlanInputError,
  isRuntimeError,
  RuntimeError,
  ToolConfigurationError,
  ToolError,
} from "./errors";
export { measureBatchPayloadBytes } from "./measure-batch-payload";
export { type BatchPlanning, planBatch } from "./plan-batch";
export { type PreflightedCall, preflightCall } from "./preflight";
export { BUILT_IN_TOOL_NAMES, BUILT_IN_TOOLS } from "./tools/built-in-tools";
export {
  type CustomToolDeclaration,
  createCustomTool,
  customToolDeclarationSchema,
  TOOL_NAME_PATTERN,
} from "./tools/custom-tool-declaration";
export type { ApprovalPolicy, JsonSchemaObject, ToolDefinition } from "./tools/tool-definition";
export { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from "./tools/tool-registry";
export {
  MAX_WORKSPACE_PATH_LENGTH,
  type MemoryStore,
  normalizeWorkspacePath,
  type TaskStore,
  type ToolContext,
  type Workspace,
} from "./tools/workspace";
export { canonicalJson, computeTurnDigest, digestsEqual } from "./turn-digest";
export {
  DEFAULT_LIMITS,
  EFFECTS,
  type Effect,
  type Limits,
  type Plan,
  type PlanProblem,
  type PlanProblemCode,
  type PlanSegment,
  RESOURCE_CLASSES,
  type ResourceClass,
  type ToolCall,
} from "./types";
