import "server-only";
import type OpenAI from "openai";
import { type Model, type ModelCompletion, RuntimeError, type TranscriptEntry } from "@/lib/runtime";
import type { ModelEndpoint } from "@/lib/server/config/model-endpoints";
import { BrokenStreamError, MalformedStreamError, readStreamedCompletion } from "./chat-completion-stream";
import { decodeChatCompletion } from "./decode-chat-completion";

/** One run's use of a configured endpoint: the endpoint, and the run's own prompt settings. */
export interface OpenAiCompatibleSettings {
  /** The operator's name for the endpoint: errors name it, never its URL. */
  name: string;
  /** Told when a stream broke and the completion is asked for again without streaming. */
  log?(message: string, detail?: Record<string, unknown>): void;
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
 * `message` of its JSON error, at most 200 characters, control characters
 * removed. Nothing else of the reply is repeated (it could be anything), and
 * an excerpt that repeats any part of the key is not shown at all.
 */
function describeRefusal(error: unknown, apiKey: string | undefined): string {
  const message = (error as { message?: unknown } | undefined)?.message;
  if (typeof message !== "string") return "";
  const printable = message
    .replace(/\p{Cc}/gu, " ")
    .trim()
    .slice(0, 200);
  if (!printable) return "";
  // Some endpoints quote the key they refused, whole, spaced out, cut short or masked.
  if (apiKey && repeatsPartOfKey(printable, apiKey))
    return " (its message is not shown: it repeats part of the key)";
  return `: ${printable}`;
}

/** Characters of a key that may say what it is, in one case: separators and spacing are not. */
const keyCharacters = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, "");
/** Consecutive characters of a key that a message may not repeat. */
const KEY_RUN_LENGTH = 6;

/**
 * Whether `text` holds a run of the key's characters (six in a row, or the
 * whole key when it is shorter), once both are stripped of everything but
 * letters and digits and lower-cased: an echo with spaces inserted, another
 * case, other separators or a part of it is caught, as well as the key itself.
 */
export function repeatsPartOfKey(text: string, key: string): boolean {
  const haystack = keyCharacters(text);
  const needle = keyCharacters(key);
  const run = Math.min(KEY_RUN_LENGTH, needle.length);
  if (run === 0) return false;
  for (let start = 0; start + run <= needle.length; start += 1) {
    if (haystack.includes(needle.slice(start, start + run))) return true;
  }
  return false;
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** A network failure named by its code (ECONNREFUSED, ENOTFOUND), never by the URL. */
function describeNetworkFailure(error: unknown): string {
  let cause: unknown = error;
  // The SDK wraps fetch's error, which wraps the socket's: the code is on the innermost.
  for (let depth = 0; depth < 4 && cause; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") return ` (${code})`;
    cause = (cause as { cause?: unknown }).cause;
  }
  return "";
}

/**
 * A model behind an OpenAI-compatible chat completions endpoint that the
 * operator configured, through the official `openai` package: its retries
 * with backoff (on 408, 409, 429 and 5xx, honouring `retry-after`), the
 * endpoint's `timeoutMs` per attempt, and the run's abort signal. Errors
 * become `model_failed`, naming the endpoint by its configured name and
 * quoting at most a short, sanitised message; the key is read from the
 * server's environment and appears nowhere else. Tool-call arguments are
 * kept exactly as the model sent them (preflight must see malformed JSON).
 */
export function createOpenAiCompatibleModel(settings: OpenAiCompatibleSettings): Model {
  const { name, endpoint } = settings;
  return {
    name,
    readsPreamble: true,
    answersLegacyRepairs: true,
    async complete({ transcript, tools, signal, preamble, onPartial }): Promise<ModelCompletion> {
      const apiKey = endpoint.apiKeyEnv ? process.env[endpoint.apiKeyEnv] : undefined;
      if (endpoint.apiKeyEnv && !apiKey) {
        throw new ModelRequestError(
          `The model endpoint "${name}" has no key: its key variable is not set on the server.`,
        );
      }
      // Loaded on first use: a run of a scripted scenario (and the CLI's start-up) never pays for it.
      const { default: OpenAIClient } = await import("openai");
      const client = new OpenAIClient({
        // Always explicit: the SDK's own OPENAI_* environment variables are never consulted.
        baseURL: endpoint.baseURL,
        apiKey: apiKey ?? "none",
        // An endpoint without a key gets no Authorization header at all.
        ...(apiKey ? {} : { defaultHeaders: { authorization: null } }),
        timeout: endpoint.timeoutMs,
        maxRetries: endpoint.maxRetries,
        // A redirect could lead the server's request (and its key) somewhere the operator did not name.
        fetchOptions: { redirect: "error" },
      });
      const system = [preamble?.text, settings.system].filter(Boolean).join("\n\n");
      const messages = toChatMessages(transcript, system || undefined) as OpenAI.ChatCompletionMessageParam[];
      const body = {
        model: endpoint.model,
        messages,
        tools: tools.map((tool) => ({ type: "function" as const, function: tool })),
        parallel_tool_calls: true,
        ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
      };
      const fail = (error: unknown) => describeFailure(OpenAIClient, error, name, endpoint, apiKey, signal);
      if (endpoint.stream) {
        const started = Date.now();
        let response: Response | null = null;
        try {
          response = await client.chat.completions
            .create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal })
            .asResponse();
        } catch (error) {
          // An endpoint that refuses the stream's parameters (400, 422) produced nothing: asked whole below.
          if (!(error instanceof OpenAIClient.APIError && (error.status === 400 || error.status === 422)))
            throw fail(error);
          settings.log?.("a model endpoint refused to stream; asking without streaming", { endpoint: name });
        }
        if (response) {
          // An endpoint that does not stream answers whole: that answer is the completion, asked for once.
          if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
            let reply: unknown;
            try {
              reply = await response.json();
            } catch (error) {
              throw fail(error instanceof SyntaxError ? error : new SyntaxError(String(error)));
            }
            return decodeReply(reply, name);
          }
          try {
            return await readWithinDeadline(response, started + endpoint.timeoutMs, signal, (chunks) =>
              readStreamedCompletion(chunks, onPartial),
            );
          } catch (error) {
            if (signal?.aborted) throw signal.reason ?? error;
            if (error instanceof MalformedStreamError)
              throw new ModelRequestError(`The model endpoint "${name}" streamed ${error.problem}.`);
            if (error instanceof StreamDeadlineError) {
              throw new ModelRequestError(
                `The model endpoint "${name}" did not finish its answer within ${formatDuration(endpoint.timeoutMs)}.`,
              );
            }
            if (!(error instanceof BrokenStreamError)) throw fail(error);
            // What was shown is withdrawn, and the completion asked for once more, whole: one completion is stored.
            onPartial?.(null);
            settings.log?.("a model's stream broke; asking again without streaming", {
              endpoint: name,
              error: error.message,
            });
          }
        }
      }
      let reply: unknown;
      try {
        reply = await client.chat.completions.create(body, { signal });
      } catch (error) {
        throw fail(error);
      }
      return decodeReply(reply, name);
    },
  };
}

function decodeReply(reply: unknown, name: string): ModelCompletion {
  const decoded = decodeChatCompletion(reply);
  if (!decoded.ok)
    throw new ModelRequestError(`The model endpoint "${name}" answered with ${decoded.problem}.`);
  return decoded.completion;
}

/** The whole of a streamed answer took longer than the endpoint's `timeoutMs`. */
class StreamDeadlineError extends Error {}

/**
 * Reads a streamed body by `deadline` (ms since the epoch): the SDK's timeout
 * ends when the answer's headers arrive, and an endpoint that then trickles,
 * or sends nothing, must not hold the run. The body is closed however the
 * reading ends.
 */
async function readWithinDeadline<T>(
  response: Response,
  deadline: number,
  signal: AbortSignal | undefined,
  read: (chunks: AsyncIterable<Uint8Array>) => Promise<T>,
): Promise<T> {
  const body = response.body;
  if (!body) throw new BrokenStreamError("the answer has no body");
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StreamDeadlineError()), Math.max(0, deadline - Date.now()));
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  stopped.catch(() => {});
  const chunks: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const result = await Promise.race([reader.read(), stopped]);
        return result.done ? { done: true, value: undefined } : { done: false, value: result.value };
      },
    }),
  };
  try {
    return await Promise.race([read(chunks), stopped]);
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/** What the run is told when a completion failed: short, naming the endpoint, never its URL or key. */
function describeFailure(
  sdk: typeof OpenAI,
  error: unknown,
  name: string,
  endpoint: ModelEndpoint,
  apiKey: string | undefined,
  signal: AbortSignal | undefined,
): unknown {
  // The run was cancelled: not the model's failure; the run loop takes the cancel.
  if (signal?.aborted || error instanceof sdk.APIUserAbortError) return error;
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ModelRequestError(
      `The model endpoint "${name}" did not answer within ${formatDuration(endpoint.timeoutMs)}.`,
    );
  }
  if (error instanceof sdk.APIConnectionError) {
    return new ModelRequestError(
      `Could not reach the model endpoint "${name}"${describeNetworkFailure(error)}.`,
    );
  }
  if (error instanceof sdk.APIError && error.status !== undefined) {
    return new ModelRequestError(
      `The model endpoint "${name}" answered ${error.status}${describeRefusal(error.error, apiKey)}`,
    );
  }
  // The SDK parses a body its content type calls JSON; one that is not JSON fails there.
  if (error instanceof SyntaxError) {
    return new ModelRequestError(`The model endpoint "${name}" answered with a body that is not JSON.`);
  }
  if (error instanceof sdk.OpenAIError) {
    return new ModelRequestError(`The model endpoint "${name}" gave an answer that could not be read.`);
  }
  return error;
}
