import type { ToolCall } from "../types";

/**
 * The model port: everything the run loop needs from an LLM. Providers
 * (scripted, OpenAI-compatible, …) implement it outside the run loop.
 */

/** What the model has seen so far, in order. Plain JSON, persisted with a suspended run. */
export type TranscriptEntry =
  | { role: "user"; text: string }
  | {
      role: "assistant";
      text: string | null;
      calls: ToolCall[];
      /** The runtime answered for a scripted model (under the legacy policy, re-sending calls it asked for). */
      synthesized?: boolean;
    }
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

/** The runtime's own system preamble: what every real model is told first, by version. */
export interface ModelPreamble {
  version: number;
  text: string;
}

export interface ModelCompletionRequest {
  transcript: readonly TranscriptEntry[];
  /** Said first, before the scenario's own system prompt (a scripted model ignores it). */
  preamble?: ModelPreamble;
  tools: readonly ModelToolSpec[];
  /** How many completions this run has already received (0 for the first). */
  completionIndex: number;
  signal?: AbortSignal;
  /**
   * Told what a model that streams has generated so far, as it grows (each
   * call a snapshot of the whole, never a fragment); `null` withdraws what
   * was said, because the completion is being asked for again without
   * streaming. Transient: none of it is stored (docs/transcript-and-fork.md#streamed-output).
   */
  onPartial?(partial: PartialCompletion | null): void;
}

/** A tool call as far as a streaming model has generated it: `arguments` may be cut mid-JSON. */
export interface PartialToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/** What a streaming model has generated of a completion so far. */
export interface PartialCompletion {
  text: string;
  calls: readonly PartialToolCall[];
}

/** A tool call as a model emitted it: `id` may be missing, `arguments` is raw text. */
export interface ModelToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/** What a completion cost, as the endpoint reported it. */
export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ModelCompletion {
  text: string | null;
  calls: ModelToolCall[];
  /** Null (or absent) when the model reports none, as a scripted one. */
  usage?: ModelUsage | null;
}

/** Produces one completion. Throws a `RuntimeError` (e.g. `script_exhausted`) when it cannot. */
export interface Model {
  complete(request: ModelCompletionRequest): Promise<ModelCompletion>;
  /** What metrics call it: the operator's endpoint name, or "scripted" (never a URL or a key). */
  name?: string;
  /** True for a model that reads the runtime's preamble (a real one); a script reads nothing. */
  readsPreamble?: boolean;
  /**
   * True for a model that answers a legacy-policy repair itself (a real one
   * regenerates the batch). For a script, the runtime answers instead, by
   * re-sending the calls the policy asked for, and counts the completion.
   */
  answersLegacyRepairs?: boolean;
}

/** One completion as a step records it: how long it took, what it cost, and the preamble it read. */
export interface CompletionRecord {
  latencyMs: number;
  usage: ModelUsage | null;
  preamble: ModelPreamble | null;
  /** The runtime answered it for a scripted model (legacy policy): no model was asked. */
  synthesized: boolean;
}
