import { createServer, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { openEventStream, request } from "./http-client";

// The edge bench's client: what it reads is what the bench times, so a message must be handed on as
// soon as its block is whole, and a request's answer must be read whole.
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(handle: (body: string, response: ServerResponse, url: string) => void) {
  const server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    handle(body, response, request.url ?? "/");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

describe("the edge bench's HTTP client", () => {
  it("hands on each event as its block is whole, while the stream stays open, and ends when it is cancelled", async () => {
    let open: ServerResponse | undefined;
    let closed = false;
    const base = await serve((_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write('retry: 1000\n\nid: 3\ndata: {"seq":3}\n\nid: 4\nda');
      response.on("close", () => (closed = true));
      open = response;
    });
    const stream = await openEventStream(`${base}/events`, {});
    await expect(stream.next()).resolves.toEqual({ id: "3", event: "message", data: '{"seq":3}' });
    const fourth = stream.next();
    open?.write('ta: {"seq":4}\n\n');
    await expect(fourth).resolves.toEqual({ id: "4", event: "message", data: '{"seq":4}' });
    await stream.cancel();
    await expect.poll(() => closed).toBe(true);
  });

  it("ends the messages with null when the server ends the stream", async () => {
    const base = await serve((_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end("event: end\ndata: {}\n\n");
    });
    const stream = await openEventStream(`${base}/events`, {});
    await expect(stream.next()).resolves.toEqual({ event: "end", data: "{}" });
    await expect(stream.next()).resolves.toBeNull();
  });

  it("refuses a stream that does not answer 200, naming the status", async () => {
    const base = await serve((_, response) => {
      response.writeHead(404).end("no such run");
    });
    await expect(openEventStream(`${base}/events`, {})).rejects.toThrow("404");
  });

  it("sends a body with its length and headers, and reads the whole answer, whatever its status", async () => {
    const base = await serve((body, response, url) => {
      response.writeHead(url === "/refuse" ? 409 : 200, { "content-type": "application/json" });
      response.write('{"got":');
      response.end(`${JSON.stringify(body)}}`);
    });
    const body = JSON.stringify({ approve: true, note: "é" });
    await expect(
      request(`${base}/decide`, { method: "POST", headers: { "content-type": "application/json" }, body }),
    ).resolves.toEqual({ status: 200, text: JSON.stringify({ got: body }) });
    await expect(request(`${base}/refuse`, { method: "POST", body: "x" })).resolves.toEqual({
      status: 409,
      text: '{"got":"x"}',
    });
  });
});
