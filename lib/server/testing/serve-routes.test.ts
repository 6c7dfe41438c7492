import { afterEach, describe, expect, it } from "vitest";
import { type ServedRoute, serveRoutes } from "./serve-routes";

// The harness stands in for Next's server in tests and in the bench: a request's signal must abort
// when Next's would, no more (every abort costs a DOMException and runs the handler's clean-ups).
let served: Awaited<ReturnType<typeof serveRoutes>> | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** A route whose answer is a body the test ends (or never ends), recording its signal. */
function recordingRoute() {
  const signals: AbortSignal[] = [];
  let finish: (() => void) | undefined;
  const route: ServedRoute = {
    method: "GET",
    path: "/body",
    handler: async (request) => {
      signals.push(request.signal);
      return new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("first\n"));
            finish = () => controller.close();
          },
        }),
      );
    },
  };
  return { route, signals, finish: () => finish?.() };
}

const aborted = (signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    else signal?.addEventListener("abort", () => resolve(), { once: true });
  });

describe("serveRoutes", () => {
  it("leaves the signal of an answer it finished alone", async () => {
    const { route, signals, finish } = recordingRoute();
    served = await serveRoutes([route]);
    const response = await fetch(`${served.url}/body`);
    const reader = response.body?.getReader();
    await reader?.read();
    finish();
    for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {}
    // The server's close of a finished answer, then a later request's: the first signal stays quiet.
    await (await fetch(`${served.url}/missing`)).text();
    await served.close();
    served = undefined;
    expect(signals[0]?.aborted).toBe(false);
  });

  it("aborts the signal when the client goes before the answer is finished", async () => {
    const { route, signals } = recordingRoute();
    served = await serveRoutes([route]);
    const client = new AbortController();
    const response = await fetch(`${served.url}/body`, { signal: client.signal });
    await response.body?.getReader().read();
    client.abort();
    await aborted(signals[0]);
    expect(signals[0]?.aborted).toBe(true);
  });
});

describe("a method a path is not served with", () => {
  const route: ServedRoute = {
    method: "GET",
    path: "/api/things/:id",
    handler: async (_request, context) => Response.json({ id: (await context.params).id }),
  };

  it("is a 405 with the one error body and Allow, as the app's routes answer it", async () => {
    served = await serveRoutes([route]);
    const response = await fetch(`${served.url}/api/things/1`, { method: "PUT" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(await response.json()).toEqual({
      error: {
        code: "method_not_allowed",
        message: "The method PUT is not one this route takes: GET, HEAD, OPTIONS.",
      },
      pending: null,
    });
  });

  it("answers OPTIONS with Allow, and HEAD with the GET", async () => {
    served = await serveRoutes([route]);
    const options = await fetch(`${served.url}/api/things/1`, { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const head = await fetch(`${served.url}/api/things/1`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("answers a path it does not serve as the app does, with the 404 naming it", async () => {
    served = await serveRoutes([route]);
    const response = await fetch(`${served.url}/api/other`, { method: "PUT" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        code: "not_found",
        message: "There is no API route at /api/other: /api/openapi.json lists the routes there are.",
      },
      pending: null,
    });
  });
});
