import { describe, expect, it } from "vitest";
import { jsonAnswer, SMALL_BODY_BYTES, sendSmallJsonUncompressed } from "./small-bodies-uncompressed";

const encoder = new TextEncoder();

describe("small JSON answers, sent uncompressed", () => {
  // Read back and marked, or marked as it is made: the same answer either way.
  it.each([
    [
      "read back",
      (body: unknown, init: ResponseInit) => sendSmallJsonUncompressed(Response.json(body, init)),
    ],
    ["made with its size", async (body: unknown, init: ResponseInit) => jsonAnswer(body, init)],
  ])(
    "marks a small JSON answer no-transform (%s), keeping its status, headers, cache directives and body",
    async (_, send) => {
      const sent = await send(
        { ok: false, error: { code: "not_found" } },
        { status: 404, headers: { "cache-control": "no-store", "x-request-id": "r-1" } },
      );
      expect(sent.status).toBe(404);
      expect(sent.headers.get("cache-control")).toBe("no-store, no-transform");
      expect(sent.headers.get("x-request-id")).toBe("r-1");
      expect(sent.headers.get("content-type")).toBe("application/json");
      expect(await sent.json()).toEqual({ ok: false, error: { code: "not_found" } });
    },
  );

  it("says no-transform alone when the answer had no cache directive", async () => {
    const sent = await sendSmallJsonUncompressed(Response.json({ ok: true }));
    expect(sent.headers.get("cache-control")).toBe("no-transform");
  });

  it("leaves a JSON answer of the threshold or more to be compressed, its body whole", async () => {
    const items = Array.from({ length: 200 }, (_, index) => ({ id: index, name: `item ${index}` }));
    const sent = await sendSmallJsonUncompressed(
      Response.json({ items }, { headers: { "cache-control": "no-store" } }),
    );
    expect(sent.headers.get("cache-control")).toBe("no-store");
    const text = await sent.text();
    expect(text.length).toBeGreaterThanOrEqual(SMALL_BODY_BYTES);
    expect(JSON.parse(text)).toEqual({ items });
  });

  it("reads no further than the threshold of a streamed answer: the rest still streams as it comes", async () => {
    let sendRest: () => void = () => {};
    const restAsked = new Promise<void>((resolve) => {
      sendRest = resolve;
    });
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode(`[${'"x",'.repeat(SMALL_BODY_BYTES / 4)}`));
        await restAsked;
        controller.enqueue(encoder.encode('"end"]'));
        controller.close();
      },
    });
    // Answered while the rest is still to come: had it waited for the whole body, this would hang.
    const sent = await sendSmallJsonUncompressed(
      new Response(body, { headers: { "content-type": "application/json" } }),
    );
    expect(sent.headers.get("cache-control")).toBeNull();
    sendRest();
    const parsed = JSON.parse(await sent.text()) as string[];
    expect(parsed.at(-1)).toBe("end");
    expect(parsed).toHaveLength(SMALL_BODY_BYTES / 4 + 1);
  });

  it("passes anything but JSON through untouched: event streams, CSV, empty answers", async () => {
    for (const response of [
      new Response("id: 1\ndata: {}\n\n", { headers: { "content-type": "text/event-stream" } }),
      new Response("a,b\n1,2\n", { headers: { "content-type": "text/csv" } }),
      new Response(null, { status: 204 }),
    ]) {
      expect(await sendSmallJsonUncompressed(response)).toBe(response);
    }
  });
});

describe("answers made with their size known (jsonAnswer)", () => {
  const large = { items: Array.from({ length: 200 }, (_, index) => ({ id: index, name: `item ${index}` })) };

  it("leaves a large answer to be compressed, its body whole", async () => {
    const answer = jsonAnswer(large);
    expect(answer.headers.get("cache-control")).toBeNull();
    expect(await answer.json()).toEqual(large);
  });

  it("is passed on as it is, small or large: nothing is read back or rebuilt", async () => {
    for (const answer of [
      jsonAnswer({ ok: true }),
      jsonAnswer(large, { headers: { "cache-control": "no-store" } }),
    ]) {
      const sent = await sendSmallJsonUncompressed(answer);
      expect(sent).toBe(answer);
      expect(sent.bodyUsed).toBe(false);
    }
  });

  it("counts the size in bytes, not characters, against the threshold", () => {
    // 400 characters of three bytes each: under the threshold as text, over it as UTF-8.
    const answer = jsonAnswer({ text: "€".repeat(400) });
    expect(answer.headers.get("cache-control")).toBeNull();
    expect(jsonAnswer({ text: "e".repeat(400) }).headers.get("cache-control")).toBe("no-transform");
  });

  it("refuses a value with no JSON form, as Response.json does", () => {
    expect(() => jsonAnswer(undefined)).toThrow(TypeError);
  });
});
