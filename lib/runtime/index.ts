/**
 * Public API of the runtime core. Framework-free: no Next.js, React, database
 * or `node:*` imports, so it runs in any JavaScript runtime with Web Crypto.
 * Test doubles of the ports are in "lib/runtime/testing".
 */

import { installValidationMessages } from "./validation-messages";

// Validation messages in plain words for every schema (zod's global error map), wherever the
// server loads the runtime. The browser's entry (browser.ts) has no such side effect.
installValidationMessages();

export type {
  AgentIdentity,
  AgentNext,
  CallOutcomeView,
  ReleaseView,
  TurnOutcome,
} from "./agent/agent-answer";
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
export { type AgentProtocol, createAgentProtocol } from "./agent/agent-protocol";
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
export { digestTurn } from "./agent/check-agent-turn";

// Running: model port, run loop, persisted state, the coordinator.
export { startCancelRun } from "./coordinator/cancel-run";
export type { CoordinatorDependencies } from "./coordinator/coordinator-dependencies";
export { startDecision } from "./coordinator/decide";
export type { Decision, DecisionOutcome, DecisionResult, StartedDecision } from "./coordinator/decision";
export {
  AlreadyApprovedError,
  DecisionRefusedError,
  InvalidDecisionError,
  NotAuditableError,
  NotRuleApproverError,
  NotWaitingError,
  RunNotFoundError,
  SelfApprovalError,
  StaleApprovalTurnError,
} from "./coordinator/decision-errors";
export {
  InvalidPlanInputError,
  isRuntimeError,
  PolicyRefusedError,
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
} from "./events/run-view";
export { formatIssuePath } from "./format-issue-path";
export { applyGrants, grantCovers } from "./grants/apply-grants";
export { compileGrantCondition } from "./grants/grant-condition";
export type { GrantStore } from "./grants/grant-store";
export {
  describeGrant,
  GRANT_SCOPES,
  type GrantRequest,
  type GrantScope,
  type GrantSubject,
  grantRequestSchema,
  type NewToolGrant,
  type ToolGrant,
} from "./grants/tool-grant";
export { comparePolicies, figuresOf, type PolicyFigures } from "./host/compare-policies";
export {
  createRunHost,
  type RunHost,
  type RunHostOptions,
  type RunStarter,
  type StartedRun,
  type StartRunOptions,
} from "./host/run-host";
export { runScenarioHeadless } from "./host/run-scenario-headless";
export { decodeStoredScenario, readStoredScenario } from "./host/stored-scenarios";
export { findJsonValueProblem, type JsonValueProblem, MAX_JSON_DEPTH, measureJsonDepth } from "./json-limits";
export {
  type CompletionDraft,
  type CompletionDrafts,
  createCompletionDrafts,
  type DraftMessage,
  type DraftSent,
  diffCompletionDraft,
} from "./model/completion-drafts";
export type {
  Model,
  ModelCompletion,
  ModelCompletionRequest,
  ModelToolCall,
  ModelToolSpec,
  PartialCompletion,
  PartialToolCall,
  TranscriptEntry,
} from "./model/model";
export { buildPreamble, PREAMBLE_VERSION } from "./model/preamble";
export { createScriptedModel, ScriptExhaustedError, type ScriptedTurn } from "./model/scripted-model";
export { withReplayedTurns } from "./model/with-replayed-turns";
export { ownRecordSchema } from "./own-record-schema";
export { capPersonName, MAX_PERSON_NAME_LENGTH } from "./person-name";
export { personNameSchema } from "./person-name-schema";
export { declaresWrite, isWriteEffect } from "./planner/declares-write";
export { measureBatchPayloadBytes } from "./planner/measure-batch-payload";
export { type BatchPlanning, planBatch } from "./planner/plan-batch";
export { type PreflightedCall, preflightCall } from "./planner/preflight";
export {
  type ApproverWorkloadDay,
  type BacktestFilter,
  type BacktestHost,
  type BacktestResult,
  type BacktestRow,
  backtestPolicy,
  type RecordedRun,
} from "./policy/backtest-policy";
export { type ActivePolicy, decideCall, type PolicyDecision } from "./policy/decide-call";
export { checkPolicy, type PolicyCheck, type PolicyProblem } from "./policy/policy-document";
export type { PolicySource, PublishedPolicies, ShadowRecord } from "./policy/policy-source";
export type { Decider } from "./policy/who-may-decide";
export { mayDecideCall } from "./policy/who-may-decide";
export { MAX_QUOTED_LENGTH, quoteSentText } from "./printable-text";
export { listIssues, MAX_LISTED_ISSUES, type PathIssue } from "./refusal-limits";
export type { ApprovalRecord, DecisionVia, StoredApproval } from "./run/approval-records";
export {
  APPROVAL_KINDS,
  DECISION_VIA_KINDS,
  decodeApprovalKind,
  decodeDecisionVia,
} from "./run/approval-records";
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
export type { NewRun, NewStep, RunRecord } from "./run/run-records";
export { INTERRUPTED_BY_FAILURE } from "./run/run-records";
export type {
  ApprovalAnnouncement,
  ApprovalStore,
  DecisionRecord,
  RunClaims,
  RunEventLog,
  RunStore,
} from "./run/run-store";
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
  InvalidScenarioError,
  parseScenarioJson,
  parseScenarioValue,
  readScenarioJson,
  type ScenarioIssue,
  validateScenario,
} from "./scenario/parse-scenario";
export {
  MAX_SCENARIO_NAME_LENGTH,
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
export {
  checkForkStep,
  type ForkedScenario,
  type ForkOrigin,
  ForkStepOutOfRangeError,
  forkRunAsScenario,
} from "./view/fork-scenario";
export { buildRunReport, type RunReport, readRunReport } from "./view/run-report";
