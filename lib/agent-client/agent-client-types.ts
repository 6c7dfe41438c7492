/**
 * The protocol's documents, as the server defines them (one source of truth:
 * `lib/runtime/agent/`, type imports only, so the client carries no runtime
 * code of the server's), and what the client adds.
 */
import type { z } from "zod";
import type { AgentNext, CallOutcomeView, ReleaseView, TurnOutcome } from "../runtime/agent/agent-answer";
import type { openAgentRunInputSchema } from "../runtime/agent/agent-schemas";

export type { AgentNext, CallOutcomeView, ReleaseView, TurnOutcome };

/** `POST /api/agent/runs`'s body: the run's name, the agent, its tools and settings (docs/agent-api.md). */
export type OpenRunInput = z.input<typeof openAgentRunInputSchema>;

/** One tool call as the model emitted it; `arguments` as its raw text, or an object (sent as its JSON). */
export interface ToolCallInput {
  id: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

/** A call the server released: execute it with `input` (an approver's edit, when `edited`). */
export interface ReleasedCall {
  callId: string;
  name: string;
  /** The arguments to run with, parsed from `rawArguments`. */
  input: unknown;
  rawArguments: string;
  edited: boolean;
  /** 1, or more when a lapsed release of an idempotent call was released again. */
  attempt: number;
  batchIndex: number;
}

/**
 * Runs one released call; its value is reported as the result, a throw as
 * its error (with the thrown `code` when it is snake_case). `signal` aborts
 * when the turn is cancelled or abandoned.
 */
export type ToolExecutor = (call: ReleasedCall, context: { signal: AbortSignal }) => Promise<unknown>;

export interface RunTurnOptions {
  execute: ToolExecutor;
  /** The model's text beside its calls. */
  text?: string | null;
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number } | null;
  /** Stops the turn here: no further call is executed, running ones see the abort, `cancelled` is thrown. */
  signal?: AbortSignal;
}
