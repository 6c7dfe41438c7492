/**
 * Public API of the runtime core. Framework-free: no Next.js, React, database
 * or `node:*` imports, so it runs in any JavaScript runtime with Web Crypto.
 * Test doubles of the ports are in "lib/runtime/testing".
 */

// Validation messages in plain words for every schema (zod's global error map).
import "./validation-messages";

// Agents that run outside the playground (docs/agent-api.md).
export { AgentProtocolError, type AgentProtocolErrorCode } from "./agent/agent-errors";
export {
  type AgentMailbox,
  type AgentRelease,
  type AgentReport,
  type AgentTurnRecord,
  createMailboxWakeups,
  type NewAgentRelease,
  RELEASE_STATES,
  type ReleaseState,
} from "./agent/agent-mailbox";
export {
  type AgentIdentity,
  type AgentNext,
  type AgentProtocol,
  type CallOutcomeView,
  createAgentProtocol,
  digestTurn,
  type ReleaseView,
  type TurnOutcome,
} from "./agent/agent-protocol";
export {
  type AgentReportInput,
  type AgentTurnInput,
  agentFinishInputSchema,
  agentReportInputSchema,
  agentTurnInputSchema,
  MAX_CALLS_PER_TURN,
  MAX_POLL_WAIT_SECONDS,
  MAX_REPORTED_RESULT_BYTES,
  type OpenAgentRunInput,
  openAgentRunInputSchema,
} from "./agent/agent-schemas";

// Running: model port, run loop, persisted state, the coordinator.
export { startCancelRun } from "./coordinator/cancel-run";
export type { CoordinatorDependencies } from "./coordinator/coordinator-dependencies";
export {
  type Decision,
  type DecisionResult,
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
  ToolServerUnavailableError,
} from "./errors";
export {
  awaitingApprovalEvent,
  callsInvalidatedEvent,
  decodeRunEvent,
  RUN_EVENT_TYPES,
  RUN_EVENT_VERSIONS,
  type RunEvent,
  type RunEventOf,
  type RunEventPayload,
  type RunEventType,
  type StoredRunEvent,
  stepPlannedEvent,
  toWireEvent,
  UnreadableEventError,
} from "./events/run-events";
export { comparePolicies, figuresOf, type PolicyFigures } from "./host/compare-policies";
export {
  createRunHost,
  decodeStoredScenario,
  type RunHost,
  type RunHostOptions,
  type RunStarter,
  type StartedRun,
} from "./host/run-host";
export { runScenarioHeadless } from "./host/run-scenario-headless";
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
export { buildPreamble, PREAMBLE_VERSION } from "./model/preamble";
export { createScriptedModel, ScriptExhaustedError, type ScriptedTurn } from "./model/scripted-model";
export { ownRecordSchema } from "./own-record-schema";
export { capPersonName, MAX_PERSON_NAME_LENGTH } from "./person-name";
export { personNameSchema } from "./person-name-schema";
export { type BatchPlanning, planBatch } from "./plan-batch";
export { type PreflightedCall, preflightCall } from "./preflight";
export type { BarrierAction } from "./run/execute-step";
export { decodeLimits, UnreadableRunError } from "./run/persisted-schemas";
export { formatRepairNotice } from "./run/plan-next-step";
export type { RunEnvironment } from "./run/run-environment";
export {
  isStoreUnavailable,
  LostClaimError,
  OutcomeNotStoredError,
  RepairExhaustedError,
  StoreUnavailableError,
  stopsTheWorker,
  UnsettledCallsError,
} from "./run/run-errors";
export { driveRun, type RunStart } from "./run/run-loop";
export type {
  ApprovalAnnouncement,
  ApprovalRecord,
  DecisionRecord,
  NewRun,
  NewStep,
  RunRecord,
  RunStore,
  StoredApproval,
} from "./run/run-store";
export { APPROVAL_KINDS, decodeApprovalKind, INTERRUPTED_BY_FAILURE } from "./run/run-store";
export type { RunTelemetry } from "./run/run-telemetry";
export {
  CALL_STATUSES,
  type CallOutcome,
  type CallStatus,
  type PendingTurn,
  RUN_STATUSES,
  type RunError,
  type RunStatus,
  type ShownToolDefinition,
  type StepMetrics,
} from "./run/run-types";
export {
  decodePendingOfState,
  decodeSuspendedState,
  type StepProgress,
  type SuspendedState,
  UnreadableStateError,
} from "./run/suspended-state";
export { decodeToolAllowances, type ToolAllowance, type ToolAllowances } from "./run/tool-allowances";
export {
  formatIssuePath,
  InvalidScenarioError,
  parseScenarioJson,
  parseScenarioValue,
  readScenarioJson,
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
export {
  checkPatternNow,
  countInlinePatternChecks,
  findSchemaPatterns,
  MAX_PATTERN_LENGTH,
  PATTERN_CHECK_BUDGET_MS,
  type PatternCheckOutcome,
  readPatternVerdict,
  recordPatternCheck,
  type SchemaPattern,
} from "./tools/safe-reg-exp";
export type { ApprovalPolicy, JsonSchemaObject, ToolDefinition, ToolOrigin } from "./tools/tool-definition";
export { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from "./tools/tool-registry";
export {
  MAX_WORKSPACE_PATH_LENGTH,
  type MemoryStore,
  normalizeWorkspacePath,
  type TaskStore,
  type ToolContext,
  type ToolProgress,
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
export { type ExportedScenario, exportRunAsScenario } from "./view/export-scenario";
export { buildRunReport, type RunReport, readRunReport } from "./view/run-report";
export {
  applyRunEvent,
  type CallView,
  classifyEvent,
  type DecisionView,
  emptyRunView,
  foldRunEvents,
  type PendingTurnView,
  type RunView,
  type StepView,
} from "./view/run-view";
