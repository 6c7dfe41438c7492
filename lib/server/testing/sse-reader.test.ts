import { describe, expect, it } from "vitest";
import { openSseReader } from "./sse-reader";

/** A response whose body delivers `chunks` and then stays open, as a live event stream does. */
function openStream(chunks: string[]) {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
    },
  });
  return {
    response: new Response(body),
    push: (text: string) => controller.enqueue(encoder.encode(text)),
  };
}

describe("the tests' SSE reader", () => {
  it("hands on a message that arrived in the same chunk as a block without data, without waiting for more", async () => {
    // The server's `retry:` and the first event often reach the client as one chunk; the stream then
    // stays quiet until its heartbeat, 15 s later.
    const { response } = openStream(['retry: 1000\n\nid: 3\ndata: {"seq":3}\n\n']);
    const reader = openSseReader(response);
    await expect(reader.next()).resolves.toEqual({ id: "3", event: "message", data: '{"seq":3}' });
  });

  it("keeps comments aside, joins data lines, and waits for a message's end across chunks", async () => {
    const { response, push } = openStream([": heartbeat\n\nevent: end\nda", "ta: a\n"]);
    const reader = openSseReader(response);
    const next = reader.next();
    push("data: b\n\n");
    await expect(next).resolves.toEqual({ event: "end", data: "a\nb" });
    expect(reader.comments).toEqual([": heartbeat"]);
  });
});
