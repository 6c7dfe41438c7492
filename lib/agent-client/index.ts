/**
 * A TypeScript client for the playground's agent API (docs/agents.md):
 * framework-free, Node 22's fetch only. Adapters for agent frameworks are
 * separate entry points beside it (`ai-sdk.ts`, `langgraph.ts`, `openai-agents.ts`).
 */
export {
  AgentClientError,
  type AgentClientErrorCode,
  isAgentClientError,
} from "./agent-client-error";
export type {
  AgentNext,
  CallOutcomeView,
  OpenRunInput,
  ReleasedCall,
  ReleaseView,
  RunTurnOptions,
  ToolCallInput,
  ToolExecutor,
  TurnOutcome,
} from "./agent-client-types";
export type { RetryOptions } from "./agent-http";
export { AgentRun } from "./agent-run";
export { type AgentClient, type ConnectOptions, connect } from "./connect";
export { type ModelToolResult, refusalForModel, toolResultForModel } from "./tool-result-for-model";
