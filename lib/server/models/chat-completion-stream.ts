import "server-only";
import { z } from "zod";
import { formatIssuePath, type ModelCompletion, type PartialCompletion } from "@/lib/runtime";

/**
 * Reading a streamed Chat Completions answer (`stream: true`): server-sent
 * events whose data are chunks of deltas, ended by `data: [DONE]`
 * (docs/transcript-and-fork.md#streamed-output). What an endpoint sends is
 * judged like a whole reply: anything that is not a chunk is the endpoint's
 * failure, named; a stream that merely stops is broken, and the caller asks
 * again without streaming.
 */

/** The stream's content cannot be read: a clear failure of the endpoint, not to be retried. */
export class MalformedStreamError extends Error {
  readonly problem: string;
  constructor(problem: string) {
    super(problem);
    this.problem = problem;
  }
}

/** The stream stopped before the completion did (the connection broke, or it ended early). */
export class BrokenStreamError extends Error {}

/** The longest one event's data may be, and the most a whole stream may carry. */
export const MAX_STREAM_EVENT_BYTES = 1024 * 1024;
export const MAX_STREAM_BYTES = 8 * 1024 * 1024;
/** More tool calls than any batch is planned with: an index past it is not a call. */
const MAX_STREAMED_CALLS = 1_000;

/**
 * Splits a byte stream into the data of its server-sent events (the SSE
 * framing: lines ended by LF, CRLF or CR; `data:` lines joined by LF;
 * comments and other fields ignored). Throws {@link MalformedStreamError}
 * past the size limits, {@link BrokenStreamError} when reading fails.
 */
export async function* readSseData(
  chunks: AsyncIterable<Uint8Array>,
  limits: { eventBytes: number; streamBytes: number } = {
    eventBytes: MAX_STREAM_EVENT_BYTES,
    streamBytes: MAX_STREAM_BYTES,
  },
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  let data: string[] | null = null;
  let total = 0;
  let skipLineFeed = false;
  const iterator = chunks[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await iterator.next();
    } catch (error) {
      throw new BrokenStreamError(`the stream broke: ${String(error)}`);
    }
    if (next.done) {
      pending += decoder.decode();
      // An event is only complete at its blank line: what is left is cut off.
      return;
    }
    total += next.value.byteLength;
    if (total > limits.streamBytes)
      throw new MalformedStreamError(`a stream longer than ${limits.streamBytes} bytes`);
    pending += decoder.decode(next.value, { stream: true });
    let start = 0;
    for (let index = 0; index < pending.length; index += 1) {
      const character = pending[index];
      if (character !== "\n" && character !== "\r") continue;
      if (skipLineFeed && character === "\n" && index === start) {
        skipLineFeed = false;
        start = index + 1;
        continue;
      }
      skipLineFeed = character === "\r";
      const line = pending.slice(start, index);
      start = index + 1;
      if (line === "") {
        if (data !== null) yield data.join("\n");
        data = null;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      if (field !== "data") continue;
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      data = [...(data ?? []), value];
      if (data.reduce((sum, part) => sum + part.length, 0) > limits.eventBytes)
        throw new MalformedStreamError(`a stream event longer than ${limits.eventBytes} bytes`);
    }
    pending = pending.slice(start);
    if (pending.length > limits.eventBytes)
      throw new MalformedStreamError(`a stream line longer than ${limits.eventBytes} bytes`);
  }
}

const toolCallDeltaSchema = z.object({
  index: z.number().int().min(0).max(MAX_STREAMED_CALLS),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});
const usageSchema = z
  .object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() })
  .nullish()
  .catch(null);
const chunkSchema = z.object({
  choices: z.array(
    z.object({
      delta: z
        .object({ content: z.string().nullish(), tool_calls: z.array(toolCallDeltaSchema).nullish() })
        .nullish(),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: usageSchema,
});

/**
 * Folds a stream's chunks into the completion they spell: text deltas
 * appended, tool calls assembled by `index` (the id and name from their
 * first fragment, the arguments from every fragment in order, kept exactly
 * as sent), usage from the chunk that reports it.
 */
export function createCompletionAccumulator() {
  let text = "";
  let hasText = false;
  const calls: Array<{ id?: string; name: string; arguments: string }> = [];
  let usage: ModelCompletion["usage"] = null;
  let isFinished = false;
  let isDone = false;

  return {
    /**
     * Adds one event's data. Returns whether the partial completion changed.
     * Throws {@link MalformedStreamError} for data that is not a chunk.
     */
    add(data: string): boolean {
      if (isDone) throw new MalformedStreamError("data after [DONE]");
      if (data === "[DONE]") {
        isDone = true;
        return false;
      }
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        throw new MalformedStreamError("a stream event that is not JSON");
      }
      // Some endpoints report a failure inside the stream instead of by status.
      if (json && typeof json === "object" && "error" in json && !("choices" in json))
        throw new MalformedStreamError("an error in the stream");
      const parsed = chunkSchema.safeParse(json);
      if (!parsed.success) {
        const [issue] = parsed.error.issues;
        const where = issue ? formatIssuePath(issue.path) : "";
        throw new MalformedStreamError(
          `a stream chunk that is not a chat completion chunk (${where || "the chunk"}: ${issue?.message})`,
        );
      }
      if (parsed.data.usage) {
        usage = {
          promptTokens: parsed.data.usage.prompt_tokens,
          completionTokens: parsed.data.usage.completion_tokens,
          totalTokens: parsed.data.usage.total_tokens,
        };
      }
      let changed = false;
      // One completion is asked for: the first choice is it.
      const choice = parsed.data.choices.find((_, index) => index === 0);
      if (!choice) return false;
      if (choice.finish_reason) isFinished = true;
      const delta = choice.delta;
      if (delta?.content) {
        text += delta.content;
        hasText = true;
        changed = true;
      }
      for (const fragment of delta?.tool_calls ?? []) {
        const call = calls[fragment.index];
        if (!call) {
          if (fragment.index !== calls.length)
            throw new MalformedStreamError(
              `a stream chunk whose tool call ${fragment.index} comes before call ${calls.length}`,
            );
          calls.push({
            ...(fragment.id ? { id: fragment.id } : {}),
            name: fragment.function?.name ?? "",
            arguments: fragment.function?.arguments ?? "",
          });
        } else {
          if (fragment.id && !call.id) call.id = fragment.id;
          if (fragment.function?.name) call.name = call.name ? call.name : fragment.function.name;
          call.arguments += fragment.function?.arguments ?? "";
        }
        changed = true;
      }
      return changed;
    },
    /** What has been generated so far (a new object each time; strings are shared). */
    partial(): PartialCompletion {
      return { text, calls: calls.map((call) => ({ ...call })) };
    },
    /** Whether the endpoint said the completion is whole (`[DONE]`, or a finish reason). */
    get isComplete(): boolean {
      return isDone || isFinished;
    },
    /**
     * The completion, once the stream ended. Throws {@link BrokenStreamError}
     * when it ended before the endpoint said it was whole, and
     * {@link MalformedStreamError} for a tool call that never got a name.
     */
    finish(): ModelCompletion {
      if (!isDone && !isFinished) throw new BrokenStreamError("the stream ended before the completion");
      const unnamed = calls.findIndex((call) => call.name === "");
      if (unnamed !== -1) throw new MalformedStreamError(`a streamed tool call ${unnamed} without a name`);
      return { text: hasText ? text : null, calls: calls.map((call) => ({ ...call })), usage };
    },
  };
}

/** Reads a streamed answer into its completion, telling `onPartial` as it grows. */
export async function readStreamedCompletion(
  chunks: AsyncIterable<Uint8Array>,
  onPartial?: (partial: PartialCompletion) => void,
): Promise<ModelCompletion> {
  const accumulator = createCompletionAccumulator();
  for await (const data of readSseData(chunks)) {
    if (accumulator.add(data)) onPartial?.(accumulator.partial());
    // Nothing after [DONE] is read: the caller closes the body.
    if (data === "[DONE]") break;
  }
  return accumulator.finish();
}
