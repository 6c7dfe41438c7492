/**
 * The runtime as the browser loads it: the event catalogue and the one fold
 * the run page keeps its view with, the planner and the turn digest, the
 * scenario format and the figures the pages show. Importing it has no side
 * effect and reaches no coordinator or host code (`browser-entry.test.ts`
 * holds that for every client component); the server uses `index.ts`.
 * zod's validation messages are installed by `instrumentation-client.ts`.
 */

export type { DecisionResult } from "./coordinator/decision";
export { decodeRunEvent, type RunEvent, type RunEventType, type StoredRunEvent } from "./events/run-events";
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
export { scenarioNameOfAgent } from "./grants/scenario-agent";
export {
  describeGrant,
  GRANT_SCOPES,
  type GrantRequest,
  type GrantScope,
  type ToolGrant,
} from "./grants/tool-grant";
export { findJsonValueProblem, MAX_JSON_DEPTH, measureJsonDepth } from "./json-limits";
export {
  applyDraftMessage,
  type DraftMessage,
  type DraftView,
} from "./model/completion-drafts";
export { buildPreamble } from "./model/preamble";
export { planBatch } from "./planner/plan-batch";
export { countWastedCompletions } from "./planner/plan-legacy";
export { type PreflightedCall, preflightCall } from "./planner/preflight";
export type { CallStatus, PendingTurn, RunStatus, ShownToolDefinition } from "./run/run-types";
export { validateScenario } from "./scenario/parse-scenario";
export { type Scenario, type ScenarioInput, scenarioSchema } from "./scenario/scenario-schema";
export { createToolRegistry, type ToolRegistry } from "./tools/tool-registry";
export { canonicalJson, computeTurnDigest, digestsEqual } from "./turn-digest";
export { DEFAULT_LIMITS, type Limits, type Plan, type ToolCall } from "./types";
export { describeIssue, installValidationMessages } from "./validation-messages";
export { sumUsage } from "./view/run-report";
