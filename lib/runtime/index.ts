/**
 * Public API of the runtime core. Framework-free: no Next.js, React, database
 * or `node:*` imports, so it runs in any JavaScript runtime with Web Crypto.
 * Test doubles of the ports are in "lib/runtime/testing".
 */

// Running: model port, run loop, persisted state, the coordinator.
export { type CancelResult, cancelRun, startCancelRun } from "./coordinator/cancel-run";
export type { CoordinatorDependencies } from "./coordinator/coordinator-dependencies";
export {
  type Decision,
  type DecisionResult,
  decide,
  type StartedDecision,
  startDecision,
} from "./coordinator/decide";
export {
  DecisionRefusedError,
  NotAuditableError,
  NotWaitingError,
  RunNotFoundError,
  SelfApprovalError,
  StaleApprovalTurnError,
} from "./coordinator/decision-errors";
export { declaresWrite, isWriteEffect } from "./declares-write";
export {
  InvalidPlanInputError,
  isRuntimeError,
  RuntimeError,
  ToolConfigurationError,
  ToolError,
} from "./errors";
export { findJsonValueProblem, type JsonValueProblem, MAX_JSON_DEPTH, measureJsonDepth } from "./json-limits";
export { measureBatchPayloadBytes } from "./measure-batch-payload";
export type {
  Model,
  ModelCompletion,
  ModelCompletionRequest,
  ModelToolCall,
  ModelToolSpec,
  TranscriptEntry,
} from "./model/model";
export { createScriptedModel, ScriptExhaustedError, type ScriptedTurn } from "./model/scripted-model";
export { type BatchPlanning, planBatch } from "./plan-batch";
export { type PreflightedCall, preflightCall } from "./preflight";
export { StepAuditError } from "./run/execute-call";
export type { RunEnvironment } from "./run/run-environment";
export { LostClaimError, RepairExhaustedError } from "./run/run-errors";
export { type BarrierAction, formatRepairNotice, type RunStart, runSteps } from "./run/run-loop";
export type { ApprovalRecord, NewStep, RunRecord, RunStore } from "./run/run-store";
export type {
  CallOutcome,
  CallStatus,
  PendingTurn,
  RunError,
  RunStatus,
  StepMetrics,
  SuspendedState,
} from "./run/run-types";
export { decodeSuspendedState, UnreadableStateError } from "./run/suspended-state";
export {
  formatIssuePath,
  InvalidScenarioError,
  parseScenarioJson,
  type ScenarioIssue,
  validateScenario,
} from "./scenario/parse-scenario";
export {
  type Scenario,
  type ScenarioDecision,
  type ScenarioInput,
  type ScenarioTurn,
  scenarioSchema,
} from "./scenario/scenario-schema";
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
