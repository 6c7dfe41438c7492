import "server-only";
import { type Model, type ModelCompletion, RuntimeError, type TranscriptEntry } from "@/lib/runtime";

export interface OpenAiCompatibleSettings {
  baseURL: string;
  model: string;
  apiKeyEnv?: string;
  system?: string;
}

/** The model endpoint could not give a usable completion. */
export class ModelRequestError extends RuntimeError {
  static override readonly brand: string = "ModelRequestError";
  declare readonly code: "model_failed";
  constructor(message: string) {
    super("model_failed", message);
  }
}

type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: unknown[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** Turns the runtime's transcript into Chat Completions messages. */
export function toChatMessages(transcript: readonly TranscriptEntry[], system?: string): ChatMessage[] {
  const messages: ChatMessage[] = system ? [{ role: "system", content: system }] : [];
  transcript.forEach((entry, index) => {
    if (entry.role === "user") messages.push({ role: "user", content: entry.text });
    if (entry.role === "assistant") {
      messages.push({
        role: "assistant",
        content: entry.text,
        ...(entry.calls.length > 0
          ? {
              tool_calls: entry.calls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      });
      // A refused batch has no results, but the API wants one answer per call.
      if (transcript[index + 1]?.role === "repair_notice") {
        for (const call of entry.calls) {
          messages.push({
            role: "tool",
            tool_call_id: call.id,
            content: "Not executed: the batch was refused.",
          });
        }
      }
    }
    if (entry.role === "tool") {
      messages.push({
        role: "tool",
        tool_call_id: entry.callId,
        content: JSON.stringify(entry.error ? { status: entry.status, error: entry.error } : entry.result),
      });
    }
    if (entry.role === "repair_notice") messages.push({ role: "user", content: entry.text });
  });
  return messages;
}

/** A model behind any OpenAI-compatible `/chat/completions` endpoint (SPEC §8). */
export function createOpenAiCompatibleModel(settings: OpenAiCompatibleSettings): Model {
  return {
    async complete({ transcript, tools, signal }): Promise<ModelCompletion> {
      const apiKey = settings.apiKeyEnv ? process.env[settings.apiKeyEnv] : undefined;
      if (settings.apiKeyEnv && !apiKey) {
        throw new ModelRequestError(
          `The environment variable ${settings.apiKeyEnv} (model.apiKeyEnv) is not set.`,
        );
      }
      const url = `${settings.baseURL.replace(/\/+$/, "")}/chat/completions`;
      let response: Response;
      try {
        response = await fetch(url, {
          method: "POST",
          signal,
          headers: {
            "content-type": "application/json",
            ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: settings.model,
            messages: toChatMessages(transcript, settings.system),
            tools: tools.map((tool) => ({ type: "function", function: tool })),
            parallel_tool_calls: true,
          }),
        });
      } catch (error) {
        throw new ModelRequestError(
          `Could not reach ${url}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (!response.ok) {
        throw new ModelRequestError(
          `${url} answered ${response.status}: ${(await response.text()).slice(0, 500)}`,
        );
      }
      const body = (await response.json().catch(() => null)) as {
        choices?: Array<{
          message?: {
            content?: string | null;
            tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>;
          };
        }>;
      } | null;
      const message = body?.choices?.[0]?.message;
      if (!message) throw new ModelRequestError(`${url} answered without choices[0].message.`);
      return {
        text: message.content ?? null,
        calls: (message.tool_calls ?? []).map((call) => ({
          ...(call.id ? { id: call.id } : {}),
          name: call.function?.name ?? "",
          arguments: call.function?.arguments ?? "",
        })),
      };
    },
  };
}
