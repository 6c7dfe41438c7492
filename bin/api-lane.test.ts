import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptsGzip, loadApiLane } from "./api-lane.ts";

// A build as Next emits it, reduced to what the lane reads: the app paths manifest, one CommonJS
// module per route whose `routeModule.userland` holds the route's exports, and the routes manifest's
// headers (next.config.mjs's). The routes' handlers are the test's own (globalThis.laneTest).
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
const hooks = globalThis as unknown as { laneTest: Record<string, Handler> };

function writeBuild(options: {
  routes: Record<string, string[]>;
  headers?: unknown[];
  shapeless?: string;
}): string {
  const distDir = mkdtempSync(path.join(tmpdir(), "tp-lane-"));
  const appPaths: Record<string, string> = {};
  for (const [route, methods] of Object.entries(options.routes)) {
    const file = `app${route}/route.js`;
    appPaths[`${route}/route`] = file;
    mkdirSync(path.join(distDir, "server", path.dirname(file)), { recursive: true });
    const exports = methods.map(
      (method) =>
        `${method}: (...args) => globalThis.laneTest[${JSON.stringify(`${method} ${route}`)}](...args)`,
    );
    writeFileSync(
      path.join(distDir, "server", file),
      route === options.shapeless
        ? "exports.handler = () => {};"
        : `let loaded = false;
exports.routeModule = {
  async ensureUserland() { loaded = true; },
  get userland() { if (!loaded) throw new Error("still loading"); return { ${exports.join(", ")}, dynamic: "force-dynamic" }; },
};`,
    );
  }
  writeFileSync(path.join(distDir, "server", "app-paths-manifest.json"), JSON.stringify(appPaths));
  const headers = options.headers ?? [
    { source: "/:path*", regex: "^(?:/(.*))?$", headers: [{ key: "X-Frame-Options", value: "DENY" }] },
    {
      source: "/api/:path*",
      regex: "^/api(?:/(.*))?$",
      headers: [{ key: "Content-Security-Policy", value: "default-src 'none'" }],
    },
  ];
  writeFileSync(path.join(distDir, "routes-manifest.json"), JSON.stringify({ headers }));
  return distDir;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let base = "";
let distDir = "";
const errors: unknown[] = [];
const closeServer: Array<() => void> = [];

function send(
  method: string,
  pathname: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${base}${pathname}`, { method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () =>
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) }),
      );
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

const json = (value: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(value), {
    ...init,
    headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) },
  });

beforeAll(async () => {
  distDir = writeBuild({
    routes: {
      "/api/things/[id]": ["GET", "POST"],
      "/api/things/[id]/stream": ["GET"],
    },
  });
  const lane = await loadApiLane(distDir, ["/api/things/[id]", "/api/things/[id]/stream"], (error) =>
    errors.push(error),
  );
  const server = createServer((incoming, outgoing) => {
    if (lane(incoming, outgoing)) return;
    outgoing.writeHead(299, { "content-type": "text/plain" }).end("to next"); // stands for Next's handler
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  closeServer.push(() => {
    server.closeAllConnections();
    server.close();
  });
});

afterAll(() => {
  for (const close of closeServer) close();
  rmSync(distDir, { recursive: true, force: true });
});

describe("the API lane", () => {
  it("calls the route's own handler with its params, the URL asked for and the body as sent", async () => {
    hooks.laneTest = {
      "POST /api/things/[id]": async (request, context) =>
        json(
          {
            params: await context.params,
            url: request.url,
            body: await request.text(),
            contentType: request.headers.get("content-type"),
            hasSignal: request.signal instanceof AbortSignal,
          },
          { status: 201, headers: { "x-request-id": "r1" } },
        ),
    };
    const answer = await send(
      "POST",
      "/api/things/a%20b?wait=settled",
      { "content-type": "application/json", host: "playground.example:8443" },
      '{"verdict":"approve"}',
    );
    expect(answer.status).toBe(201);
    expect(answer.headers["x-request-id"]).toBe("r1");
    expect(JSON.parse(answer.body.toString())).toEqual({
      params: { id: "a b" },
      url: "http://playground.example:8443/api/things/a%20b?wait=settled",
      body: '{"verdict":"approve"}',
      contentType: "application/json",
      hasSignal: true,
    });
  });

  it("adds next.config's headers for the path, and the route's own header of the same name wins", async () => {
    hooks.laneTest = {
      "GET /api/things/[id]": async () =>
        json({ ok: true }, { headers: { "x-frame-options": "SAMEORIGIN" } }),
    };
    const answer = await send("GET", "/api/things/1");
    expect(answer.headers["content-security-policy"]).toBe("default-src 'none'");
    expect(answer.headers["x-frame-options"]).toBe("SAMEORIGIN");
  });

  it.each([
    ["a method the route does not export", "DELETE", "/api/things/1"],
    ["HEAD, which Next derives from GET", "HEAD", "/api/things/1"],
    ["OPTIONS, which Next answers itself", "OPTIONS", "/api/things/1"],
    ["a path not on the lane", "GET", "/api/other/1"],
    ["a longer path", "GET", "/api/things/1/more"],
    ["a trailing slash, which Next redirects", "GET", "/api/things/1/"],
    ["a page", "GET", "/runs/1"],
  ])("leaves %s to Next", async (_, method, pathname) => {
    expect((await send(method, pathname)).status).toBe(299);
  });

  describe("compression, as Next's", () => {
    const large = { items: Array.from({ length: 100 }, (_, index) => ({ index, name: `item ${index}` })) };
    it("gzips a JSON answer of 1 KiB or more for a client that accepts gzip", async () => {
      hooks.laneTest = { "GET /api/things/[id]": async () => json(large) };
      const answer = await send("GET", "/api/things/1", { "accept-encoding": "gzip, deflate" });
      expect(answer.headers["content-encoding"]).toBe("gzip");
      expect(answer.headers.vary).toContain("Accept-Encoding");
      expect(JSON.parse(gunzipSync(answer.body).toString())).toEqual(large);
    });

    it.each([
      ["a client that does not ask for it", {}],
      ["a client that refuses it", { "accept-encoding": "gzip;q=0, identity" }],
    ])("sends it as it is to %s", async (_, headers) => {
      hooks.laneTest = { "GET /api/things/[id]": async () => json(large) };
      const answer = await send("GET", "/api/things/1", headers);
      expect(answer.headers["content-encoding"]).toBeUndefined();
      expect(JSON.parse(answer.body.toString())).toEqual(large);
    });

    it("never gzips a small answer, or one marked no-transform", async () => {
      hooks.laneTest = { "GET /api/things/[id]": async () => json({ ok: true }) };
      expect(
        (await send("GET", "/api/things/1", { "accept-encoding": "gzip" })).headers["content-encoding"],
      ).toBe(undefined);
      hooks.laneTest = {
        "GET /api/things/[id]": async () => json(large, { headers: { "cache-control": "no-transform" } }),
      };
      const marked = await send("GET", "/api/things/1", { "accept-encoding": "gzip" });
      expect(marked.headers["content-encoding"]).toBeUndefined();
      expect(JSON.parse(marked.body.toString())).toEqual(large);
    });

    it.each([
      ["gzip", true],
      ["br, gzip;q=0.5", true],
      ["*", true],
      ["identity", false],
      ["gzip;q=0", false],
      ["gzip;q=0.0, *;q=0", false],
      [undefined, false],
    ])("reads Accept-Encoding %s as taking gzip: %s", (header, expected) => {
      expect(acceptsGzip(header)).toBe(expected);
    });
  });

  it("writes a stream as it comes, and aborts the request when the client goes", async () => {
    let aborted: () => void = () => {};
    const abortedOnce = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    let cancelled = false;
    hooks.laneTest = {
      "GET /api/things/[id]/stream": async (request) => {
        request.signal.addEventListener("abort", () => aborted());
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("data: first\n\n"));
          },
          cancel() {
            cancelled = true;
          },
        });
        return new Response(body, {
          headers: { "content-type": "text/event-stream", "cache-control": "no-transform" },
        });
      },
    };
    const firstChunk = await new Promise<string>((resolve, reject) => {
      const outgoing = httpRequest(`${base}/api/things/1/stream`, (incoming) => {
        incoming.once("data", (chunk: Buffer) => {
          resolve(chunk.toString());
          outgoing.destroy(); // the client goes while the stream is open
        });
      });
      outgoing.on("error", () => {});
      outgoing.on("timeout", reject);
      outgoing.end();
    });
    expect(firstChunk).toBe("data: first\n\n");
    await abortedOnce;
    await expect.poll(() => cancelled).toBe(true);
  });

  it("keeps every Set-Cookie a route sends", async () => {
    hooks.laneTest = {
      "GET /api/things/[id]": async () => {
        const headers = new Headers({ "content-type": "application/json" });
        headers.append("set-cookie", "a=1; Path=/");
        headers.append("set-cookie", "b=2; Path=/");
        return new Response("{}", { headers });
      },
    };
    expect((await send("GET", "/api/things/1")).headers["set-cookie"]).toEqual([
      "a=1; Path=/",
      "b=2; Path=/",
    ]);
  });

  it("answers the one error body when a handler throws, and goes on serving", async () => {
    hooks.laneTest = {
      "GET /api/things/[id]": async () => {
        throw new Error("boom");
      },
    };
    const failed = await send("GET", "/api/things/1");
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.body.toString())).toEqual({
      error: { code: "internal_error", message: "Something went wrong on the server." },
      pending: null,
    });
    expect(failed.body.toString()).not.toContain("boom");
    expect(failed.headers["content-security-policy"]).toBe("default-src 'none'");
    expect(errors.map(String)).toContain("Error: boom");
    hooks.laneTest = { "GET /api/things/[id]": async () => json({ ok: true }) };
    expect((await send("GET", "/api/things/1")).status).toBe(200);
  });
});

describe("loading the lane from a build", () => {
  it("refuses a build without one of its routes, and says to build", async () => {
    const build = writeBuild({ routes: { "/api/things/[id]": ["GET"] } });
    await expect(loadApiLane(build, ["/api/things/[id]", "/api/gone"])).rejects.toThrow(
      /has no route \/api\/gone: rebuild with `npm run build`/,
    );
    rmSync(build, { recursive: true, force: true });
  });

  it("refuses a route module it cannot call, and names the way to serve through Next", async () => {
    const build = writeBuild({ routes: { "/api/things/[id]": ["GET"] }, shapeless: "/api/things/[id]" });
    await expect(loadApiLane(build, ["/api/things/[id]"])).rejects.toThrow(/PLAYGROUND_API_LANE=off/);
    rmSync(build, { recursive: true, force: true });
  });

  it("refuses a route module whose exports it cannot load", async () => {
    const build = writeBuild({ routes: { "/api/things/[id]": ["GET"] } });
    const file = path.join(build, "server", "app/api/things/[id]/route.js");
    writeFileSync(file, 'exports.routeModule = { get userland() { throw new Error("still loading"); } };');
    await expect(loadApiLane(build, ["/api/things/[id]"])).rejects.toThrow(/PLAYGROUND_API_LANE=off/);
    rmSync(build, { recursive: true, force: true });
  });

  it("refuses a headers() rule it could not apply as Next does", async () => {
    const build = writeBuild({
      routes: { "/api/things/[id]": ["GET"] },
      headers: [{ source: "/:path*", regex: "^/(.*)$", headers: [], has: [{ type: "header", key: "x" }] }],
    });
    await expect(loadApiLane(build, ["/api/things/[id]"])).rejects.toThrow(/`has` or `missing`/);
    rmSync(build, { recursive: true, force: true });
  });
});
