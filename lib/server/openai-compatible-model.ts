import "server-only";
import { type Model, type ModelCompletion, RuntimeError, type TranscriptEntry } from "@/lib/runtime";
import type { ModelEndpoint } from "./model-endpoints";

/** One run's use of a configured endpoint: the endpoint, and the run's own prompt settings. */
export interface OpenAiCompatibleSettings {
  /** The operator's name for the endpoint: errors name it, never its URL. */
  name: string;
  endpoint: ModelEndpoint;
  system?: string;
  temperature?: number;
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
        content: JSON.stringify(
          entry.note
            ? {
                ...(entry.error ? { status: entry.status, error: entry.error } : { result: entry.result }),
                note: entry.note,
              }
            : entry.error
              ? { status: entry.status, error: entry.error }
              : entry.result,
        ),
      });
    }
    if (entry.role === "repair_notice") messages.push({ role: "user", content: entry.text });
  });
  return messages;
}

/**
 * A short, printable excerpt of what an endpoint said went wrong: the
 * `error.message` of a JSON body, at most 200 characters, control characters
 * and the key removed. Nothing else of the reply is repeated (it could be anything).
 */
function describeRefusal(bodyText: string, apiKey: string | undefined): string {
  let message: unknown;
  try {
    message = (JSON.parse(bodyText) as { error?: { message?: unknown } }).error?.message;
  } catch {
    return "";
  }
  if (typeof message !== "string") return "";
  // Some endpoints quote the key they refused: never pass it on.
  const redacted = apiKey ? message.split(apiKey).join("[key]") : message;
  const printable = redacted
    .replace(/\p{Cc}/gu, " ")
    .trim()
    .slice(0, 200);
  return printable ? `: ${printable}` : "";
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** A network failure named by its code (ECONNREFUSED, ENOTFOUND), never by the URL. */
function describeNetworkFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } })?.cause;
  return typeof cause?.code === "string" ? ` (${cause.code})` : "";
}

/**
 * A model behind an OpenAI-compatible `/chat/completions` endpoint that the
 * operator configured. Each completion is bounded by the endpoint's
 * `timeoutMs` and aborted with the run's signal. Errors name the endpoint by
 * its configured name and quote at most a short, sanitised message; the key
 * is read from the server's environment and appears nowhere else.
 */
export function createOpenAiCompatibleModel(settings: OpenAiCompatibleSettings): Model {
  const { name, endpoint } = settings;
  return {
    async complete({ transcript, tools, signal }): Promise<ModelCompletion> {
      const apiKey = endpoint.apiKeyEnv ? process.env[endpoint.apiKeyEnv] : undefined;
      if (endpoint.apiKeyEnv && !apiKey) {
        throw new ModelRequestError(
          `The model endpoint "${name}" has no key: its key variable is not set on the server.`,
        );
      }
      const url = `${endpoint.baseURL.replace(/\/+$/, "")}/chat/completions`;
      const timeout = AbortSignal.timeout(endpoint.timeoutMs);
      let response: Response;
      let bodyText: string;
      try {
        response = await fetch(url, {
          method: "POST",
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
          redirect: "error",
          headers: {
            "content-type": "application/json",
            ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: endpoint.model,
            messages: toChatMessages(transcript, settings.system),
            tools: tools.map((tool) => ({ type: "function", function: tool })),
            parallel_tool_calls: true,
            ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
          }),
        });
        bodyText = await response.text();
      } catch (error) {
        if (signal?.aborted) throw error; // the run was cancelled: not the model's failure
        if (timeout.aborted) {
          throw new ModelRequestError(
            `The model endpoint "${name}" did not answer within ${formatDuration(endpoint.timeoutMs)}.`,
          );
        }
        throw new ModelRequestError(
          `Could not reach the model endpoint "${name}"${describeNetworkFailure(error)}.`,
        );
      }
      if (!response.ok) {
        throw new ModelRequestError(
          `The model endpoint "${name}" answered ${response.status}${describeRefusal(bodyText, apiKey)}`,
        );
      }
      let body: {
        choices?: Array<{
          message?: {
            content?: string | null;
            tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>;
          };
        }>;
      } | null = null;
      try {
        body = JSON.parse(bodyText);
      } catch {
        // reported below
      }
      const message = body?.choices?.[0]?.message;
      if (!message)
        throw new ModelRequestError(`The model endpoint "${name}" answered without choices[0].message.`);
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
