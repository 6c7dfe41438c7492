import { describe, expect, it } from "vitest";
import type { PartialCompletion } from "@/lib/runtime";
import {
  BrokenStreamError,
  createCompletionAccumulator,
  MalformedStreamError,
  readSseData,
  readStreamedCompletion,
} from "./chat-completion-stream";

const encoder = new TextEncoder();

/** A body arriving in the given pieces, then (optionally) failing as a cut connection does. */
async function* bodyOf(pieces: string[], failure?: Error): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) yield encoder.encode(piece);
  if (failure) throw failure;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const item of iterable) all.push(item);
  return all;
}

describe("reading server-sent events", () => {
  it("joins data lines, skips comments and other fields, and reads LF, CRLF and CR line ends split anywhere", async () => {
    const text = ": hello\nevent: x\ndata: one\ndata: two\n\nid: 3\r\ndata:three\r\n\r\ndata: four\r\r";
    // Cut into single characters: an event, a line end (CR | LF) and a UTF-8 character may span reads.
    const pieces = [...text];
    expect(await collect(readSseData(bodyOf(pieces)))).toEqual(["one\ntwo", "three", "four"]);
  });

  it("does not yield an event the stream cut off before its blank line", async () => {
    expect(await collect(readSseData(bodyOf(["data: whole\n\n", "data: cut"])))).toEqual(["whole"]);
  });

  it("refuses an event or a stream past its limits, by name", async () => {
    const limits = { eventBytes: 16, streamBytes: 64 };
    await expect(collect(readSseData(bodyOf([`data: ${"x".repeat(40)}\n\n`]), limits))).rejects.toThrow(
      "a stream event longer than 16 bytes",
    );
    // A line that never ends is held to the same bound.
    await expect(collect(readSseData(bodyOf(["data: xxxxxxxxxx", "xxxxxxxxxxxx"]), limits))).rejects.toThrow(
      "a stream line longer than 16 bytes",
    );
    await expect(
      collect(readSseData(bodyOf(Array.from({ length: 10 }, () => "data: a\n\n")), limits)),
    ).rejects.toThrow("a stream longer than 64 bytes");
  });

  it("says a stream whose reading fails is broken", async () => {
    await expect(
      collect(readSseData(bodyOf(["data: one\n\n"], new TypeError("terminated")))),
    ).rejects.toBeInstanceOf(BrokenStreamError);
  });
});

describe("accumulating a streamed completion", () => {
  it("appends text deltas and assembles tool calls from argument fragments by index", async () => {
    const partials: PartialCompletion[] = [];
    const completion = await readStreamedCompletion(
      bodyOf([
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "Reading " }),
        chunk({ content: "both." }),
        chunk({
          tool_calls: [
            { index: 0, id: "c_a", type: "function", function: { name: "read_file", arguments: '{"pa' } },
          ],
        }),
        // Two calls interleaved in one chunk, as parallel tool calls are streamed.
        chunk({
          tool_calls: [
            { index: 0, function: { arguments: 'th":"a.md"}' } },
            { index: 1, id: "c_b", type: "function", function: { name: "read_file", arguments: "" } },
          ],
        }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '{"path":"b.md"' } }] }),
        chunk({}, "tool_calls"),
        `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } })}\n\n`,
        "data: [DONE]\n\n",
      ]),
      (partial) => partials.push(partial),
    );
    expect(completion).toEqual({
      text: "Reading both.",
      calls: [
        { id: "c_a", name: "read_file", arguments: '{"path":"a.md"}' },
        // Kept exactly as sent, unfinished JSON included: preflight judges it.
        { id: "c_b", name: "read_file", arguments: '{"path":"b.md"' },
      ],
      usage: { promptTokens: 5, completionTokens: 7, totalTokens: 12 },
    });
    expect(partials.map((partial) => partial.text)).toEqual([
      "Reading ",
      "Reading both.",
      "Reading both.",
      "Reading both.",
      "Reading both.",
    ]);
    expect(partials[3]?.calls).toEqual([
      { id: "c_a", name: "read_file", arguments: '{"path":"a.md"}' },
      { id: "c_b", name: "read_file", arguments: "" },
    ]);
    // Each partial is a snapshot: later fragments do not change one already handed out.
    expect(partials[2]?.calls).toEqual([{ id: "c_a", name: "read_file", arguments: '{"pa' }]);
  });

  it("reads a completion without text as text null, and one that ends with a finish reason but no [DONE]", async () => {
    const completion = await readStreamedCompletion(
      bodyOf([
        chunk({ tool_calls: [{ index: 0, function: { name: "finish", arguments: "{}" } }] }),
        chunk({}, "stop"),
      ]),
    );
    expect(completion).toEqual({ text: null, calls: [{ name: "finish", arguments: "{}" }], usage: null });
  });

  it("calls a stream that stops before the completion does broken, whether it ends or fails", async () => {
    await expect(readStreamedCompletion(bodyOf([chunk({ content: "Half an ans" })]))).rejects.toBeInstanceOf(
      BrokenStreamError,
    );
    await expect(
      readStreamedCompletion(bodyOf([chunk({ content: "Half" })], new Error("socket hang up"))),
    ).rejects.toBeInstanceOf(BrokenStreamError);
  });

  it.each([
    ["data: {not json\n\n", "a stream event that is not JSON"],
    [`data: ${JSON.stringify({ error: { message: "overloaded" } })}\n\n`, "an error in the stream"],
    [`data: ${JSON.stringify({ choices: [{ delta: { content: 42 } }] })}\n\n`, "choices[0].delta.content"],
    [`data: ${JSON.stringify({ object: "html" })}\n\n`, "not a chat completion chunk"],
    [
      chunk({ tool_calls: [{ index: 3, function: { name: "x", arguments: "" } }] }),
      "tool call 3 comes before call 0",
    ],
    [
      chunk({ tool_calls: [{ index: 0, function: { arguments: "{}" } }] }) + chunk({}, "stop"),
      "tool call 0 without a name",
    ],
    [`${chunk({}, "stop")}data: [DONE]\n\ndata: [DONE]\n\n`, null],
  ])("names what is wrong with hostile data: %j", async (text, problem) => {
    const reading = readStreamedCompletion(bodyOf([text]));
    if (problem === null) {
      // Nothing after [DONE] is read.
      await expect(reading).resolves.toEqual({ text: null, calls: [], usage: null });
      return;
    }
    const error = await reading.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MalformedStreamError);
    expect((error as MalformedStreamError).problem).toContain(problem);
  });

  it("refuses data after [DONE] when fed directly", () => {
    const accumulator = createCompletionAccumulator();
    accumulator.add("[DONE]");
    expect(() => accumulator.add(chunk({ content: "x" }))).toThrow(MalformedStreamError);
  });
});
