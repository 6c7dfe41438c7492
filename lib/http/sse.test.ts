import { describe, expect, it } from "vitest";
import { formatSseMessage, openSseResponse } from "./sse";

async function readUntil(response: Response, predicate: (text: string) => boolean): Promise<string> {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) throw new Error("no body");
  let text = "";
  while (!predicate(text)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += chunk.value;
  }
  await reader.cancel();
  return text;
}

describe("server-sent events framing", () => {
  it("frames id, event and every line of data, ending with a blank line", () => {
    expect(formatSseMessage({ id: "7", event: "end", data: "a\nb" })).toBe(
      "id: 7\nevent: end\ndata: a\ndata: b\n\n",
    );
    expect(formatSseMessage({ data: "{}" })).toBe("data: {}\n\n");
  });

  it("tells the browser how soon to reconnect, and sends heartbeats while idle", async () => {
    const response = openSseResponse(new AbortController().signal, async () => () => {}, { heartbeatMs: 10 });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await readUntil(response, (received) => received.split(": heartbeat").length > 2);
    expect(text.startsWith("retry: ")).toBe(true);
    expect(text.match(/: heartbeat\n\n/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it("cleans up exactly once when the client goes away, and stops writing", async () => {
    const abort = new AbortController();
    let cleanUps = 0;
    let sendAfterAbort: (() => void) | undefined;
    const response = openSseResponse(abort.signal, async (channel) => {
      sendAfterAbort = () => channel.send({ data: "late" });
      return () => {
        cleanUps += 1;
      };
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    abort.abort();
    sendAfterAbort?.();
    await response.body?.cancel();
    expect(cleanUps).toBe(1);
  });

  it("cleans up a stream whose client left before it opened", async () => {
    const abort = new AbortController();
    abort.abort();
    let cleanUps = 0;
    const response = openSseResponse(abort.signal, async () => () => {
      cleanUps += 1;
    });
    expect(await readUntil(response, () => false)).toMatch(/^retry: /);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cleanUps).toBe(1);
  });

  it("cleans up a stream the server closed before its start finished", async () => {
    let cleanUps = 0;
    const response = openSseResponse(new AbortController().signal, async (channel) => {
      channel.close();
      return () => {
        cleanUps += 1;
      };
    });
    expect(await readUntil(response, () => false)).toMatch(/^retry: /);
    expect(cleanUps).toBe(1);
  });
});
