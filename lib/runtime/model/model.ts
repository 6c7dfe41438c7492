import type { ToolCall } from "../types";

/**
 * The model port: everything the run loop needs from an LLM. Providers
 * (scripted, OpenAI-compatible, …) implement it outside the run loop.
 */

/** What the model has seen so far, in order. Plain JSON, persisted with a suspended run. */
export type TranscriptEntry =
  | { role: "user"; text: string }
  | { role: "assistant"; text: string | null; calls: ToolCall[] }
  | {
      role: "tool";
      callId: string;
      name: string;
      batchIndex: number;
      status: string;
      result: unknown;
      error: { code: string; message: string } | null;
      /** Said to the model with the outcome: a person changed the call's arguments before approving it. */
      note?: string;
    }
  | { role: "repair_notice"; text: string };

/** A tool as the model is told about it. */
export interface ModelToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelCompletionRequest {
  transcript: readonly TranscriptEntry[];
  tools: readonly ModelToolSpec[];
  /** How many completions this run has already received (0 for the first). */
  completionIndex: number;
  signal?: AbortSignal;
}

/** A tool call as a model emitted it: `id` may be missing, `arguments` is raw text. */
export interface ModelToolCall {
  id?: string;
  name: string;
  arguments: string;
}

export interface ModelCompletion {
  text: string | null;
  calls: ModelToolCall[];
}

/** Produces one completion. Throws a `RuntimeError` (e.g. `script_exhausted`) when it cannot. */
export interface Model {
  complete(request: ModelCompletionRequest): Promise<ModelCompletion>;
}
