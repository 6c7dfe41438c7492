import { describe, expect, it } from "vitest";
import { parseSseText } from "../testing/sse-reader";
import {
  formatSseMessage,
  openSseResponse,
  SSE_DROPPED_EVENT,
  SSE_HIGH_WATER_BYTES,
  type SseChannel,
} from "./sse-channel";

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

  it("sends messages given together in one write, each framed", async () => {
    let channel!: SseChannel;
    const response = openSseResponse(new AbortController().signal, async (opened) => {
      channel = opened;
      return () => {};
    });
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    const decoder = new TextDecoder();
    const next = async () => decoder.decode((await reader.read()).value);
    expect(await next()).toMatch(/^retry: /);
    const messages = [
      { id: "1", data: "a" },
      { id: "2", data: "b\nc" },
      { event: "end", data: "{}" },
    ];
    channel.sendAll(messages);
    channel.sendAll([]);
    channel.send({ id: "3", data: "d" });
    expect(await next()).toBe(messages.map(formatSseMessage).join(""));
    expect(await next()).toBe(formatSseMessage({ id: "3", data: "d" }));
    await reader.cancel();
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

describe("a stream's buffer cap", () => {
  const kib = (count: number) => "x".repeat(count * 1024);

  /** A stream capped at `bufferBytes`, started, that nobody has read yet. */
  async function openCapped(bufferBytes: number) {
    let channel!: SseChannel;
    let cleanUps = 0;
    const response = openSseResponse(
      new AbortController().signal,
      async (opened) => {
        channel = opened;
        return () => {
          cleanUps += 1;
        };
      },
      { bufferBytes },
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    return { channel, response, cleanUps: () => cleanUps };
  }

  it("drops a reader that leaves more than the cap unread, with a final event saying why, and holds no more", async () => {
    const { channel, response, cleanUps } = await openCapped(200 * 1024);
    // Nobody reads: 300 messages of 1 KiB each would be 300 KiB.
    let sent = 0;
    while (!channel.isClosed && sent < 300) {
      channel.send({ id: String(sent + 1), data: kib(1) });
      sent += 1;
    }
    expect(channel.isClosed).toBe(true);
    expect(cleanUps()).toBe(1);
    expect(sent).toBeLessThan(210);
    const text = await readUntil(response, () => false);
    expect(text.length).toBeLessThan(210 * 1024);
    const messages = parseSseText(text);
    const last = messages.at(-1);
    expect(last?.event).toBe(SSE_DROPPED_EVENT);
    expect(JSON.parse(last?.data ?? "")).toMatchObject({ reason: "slow_reader" });
    // What was delivered is a prefix, without a hole: the reader resumes after its last id.
    const ids = messages.flatMap((message) => (message.id ? [Number(message.id)] : []));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
  });

  it("drops a reader all the same when the messages past the cap come in one write", async () => {
    const { channel, response, cleanUps } = await openCapped(200 * 1024);
    // Nobody reads, and one commit brings 300 KiB.
    channel.sendAll(Array.from({ length: 300 }, (_, index) => ({ id: String(index + 1), data: kib(1) })));
    expect(channel.isClosed).toBe(true);
    expect(cleanUps()).toBe(1);
    const messages = parseSseText(await readUntil(response, () => false));
    expect(messages.at(-1)?.event).toBe(SSE_DROPPED_EVENT);
    const ids = messages.flatMap((message) => (message.id ? [Number(message.id)] : []));
    expect(ids.length).toBeGreaterThan(190);
    expect(ids.length).toBeLessThan(210);
    expect(ids).toEqual(ids.map((_, index) => index + 1));
  });

  it("keeps a reader that reads, however much passes through", async () => {
    const { channel, response } = await openCapped(128 * 1024);
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    let received = 0;
    for (let index = 0; index < 1000; index += 1) {
      await channel.whenReady();
      channel.send({ data: kib(1) });
      // The reader takes what is there now and then.
      if (index % 10 === 0) {
        for (;;) {
          const chunk = await reader.read();
          received += chunk.value?.byteLength ?? 0;
          if (channel.isClosed || received > index * 1024) break;
        }
      }
    }
    expect(channel.isClosed).toBe(false);
    channel.close();
  });

  it("holds a waiting producer at the high-water mark until the reader takes what is queued", async () => {
    let channel!: SseChannel;
    const response = openSseResponse(new AbortController().signal, async (opened) => {
      channel = opened;
      return () => {};
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    const half = kib(SSE_HIGH_WATER_BYTES / 1024 / 2);
    channel.send({ data: half });
    channel.send({ data: half });
    const isReady = () =>
      Promise.race([
        channel.whenReady().then(() => true),
        new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
      ]);
    // Nobody reads: a producer that waits for room waits.
    expect(await isReady()).toBe(false);
    const producing = (async () => {
      for (let page = 0; page < 8; page += 1) {
        await channel.whenReady();
        channel.send({ data: half });
      }
      channel.close();
    })();
    const text = await readUntil(response, () => false);
    await producing;
    expect(text.split(half).length - 1).toBe(10);
  });
});
