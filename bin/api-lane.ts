// The API lane of the production server (bin/start-server.ts, docs/operations.md#the-api-lane): the
// decision and the agent API go straight from Node's HTTP server to the app's own route handlers, as
// the build compiled them, without Next's router in front. Through the router a decision over HTTP
// took about a millisecond more at the median and two to three more at p99 on two cores
// (docs/performance.md#the-api-lane-2026-12-05-afternoon); everything else, every page and the
// other API routes, still goes through Next.
//
// Runs under Node's own TypeScript support (erasable syntax only), like the server that uses it.
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { gzip } from "node:zlib";

/**
 * The routes the lane serves, named as the app directory names them: what an agent and an approver
 * wait on (a decision, a run's stream, every agent API call). Paths match whole; a `[id]` segment is
 * any one segment. A route file exports an answer to every method it does not take (a 405, and
 * OPTIONS: lib/http/answer-other-methods.ts), which the lane calls as it calls the route's own; what
 * it does not export, HEAD of a route that takes GET, goes to Next, which answers with the GET.
 */
export const LANE_ROUTES = [
  "/api/runs/[id]/decision",
  "/api/runs/[id]/events",
  "/api/agent/runs",
  "/api/agent/runs/[id]",
  "/api/agent/runs/[id]/next",
  "/api/agent/runs/[id]/turns",
  "/api/agent/runs/[id]/events",
  "/api/agent/runs/[id]/reports",
  "/api/agent/runs/[id]/heartbeat",
  "/api/agent/runs/[id]/finish",
  "/api/agent/runs/[id]/cancel",
] as const;

/** What the lane takes over: true when it answered (or is answering) the request. */
export type ApiLane = (incoming: IncomingMessage, outgoing: ServerResponse) => boolean;

export type RouteHandler = (
  request: Request,
  context: { params: Promise<Record<string, string>> },
) => Promise<Response>;

interface LaneRoute {
  pattern: RegExp;
  keys: string[];
  handlers: Record<string, RouteHandler>;
}

export interface ConfigHeaders {
  pattern: RegExp;
  headers: Array<{ key: string; value: string }>;
}

/** A route module as a Next build emits it; `userland` is what the route file exports. */
interface BuiltRouteModule {
  routeModule?: { ensureUserland?: () => Promise<void>; userland?: Record<string, unknown> };
}

/** Next's own threshold for compressing an answer (its `compression` middleware): 1 KiB. */
const COMPRESSION_THRESHOLD_BYTES = 1024;
const gzipAsync = promisify(gzip);

/**
 * Loads the lane's routes from the production build in `distDir` (`.next`), with the response
 * headers next.config.mjs gives them (routes-manifest.json, as Next applies them). Throws, naming
 * what is missing, when the build lacks a route or the route module is not what this lane expects
 * (a Next upgrade): a server that starts serves every lane route, or does not start.
 */
export async function loadApiLane(
  distDir: string,
  routes: readonly string[] = LANE_ROUTES,
  onError: (error: unknown) => void = (error) => console.error("the API lane failed to answer:", error),
): Promise<ApiLane> {
  const serverDir = path.join(distDir, "server");
  const appPaths = readJson<Record<string, string>>(path.join(serverDir, "app-paths-manifest.json"));
  const requireBuilt = createRequire(path.join(serverDir, "lane.js"));
  const laneRoutes: LaneRoute[] = [];
  for (const route of routes) {
    const file = appPaths[`${route}/route`];
    if (!file)
      throw new Error(`The build in ${distDir} has no route ${route}: rebuild with \`npm run build\`.`);
    const userland = await readUserland(requireBuilt(path.join(serverDir, file)) as BuiltRouteModule);
    if (!userland) {
      throw new Error(
        `The built route ${route} has no route module this server can call (a Next.js upgrade?); start with PLAYGROUND_API_LANE=off to serve every route through Next.`,
      );
    }
    const handlers: Record<string, RouteHandler> = {};
    for (const [name, value] of Object.entries(userland)) {
      if (/^[A-Z]+$/.test(name) && typeof value === "function") handlers[name] = value as RouteHandler;
    }
    const keys = [...route.matchAll(/\[(\w+)\]/g)].map((match) => match[1] ?? "");
    const pattern = new RegExp(`^${route.replace(/\[\w+\]/g, "([^/]+)")}$`);
    laneRoutes.push({ pattern, keys, handlers });
  }
  const configHeaders = readConfigHeaders(distDir);
  return (incoming, outgoing) => {
    const pathname = (incoming.url ?? "/").split("?")[0] ?? "/";
    const route = laneRoutes.find((candidate) => candidate.pattern.test(pathname));
    const handler = route?.handlers[incoming.method ?? ""];
    if (!route || !handler) return false;
    const values = route.pattern.exec(pathname)?.slice(1) ?? [];
    const params = Object.fromEntries(
      route.keys.map((key, index) => [key, decodeSegment(values[index] ?? "")]),
    );
    const headers = configHeaders
      .filter((entry) => entry.pattern.test(pathname))
      .flatMap((entry) => entry.headers);
    answerWithHandler(incoming, outgoing, handler, params, headers, onError);
    return true;
  };
}

/**
 * Answers one request with a route handler: the web `Request` built from Node's, the handler's
 * `Response` written back with `configHeaders` under its own. A handler that throws gets the one
 * error body, and `onError` hears why. Also what the tests' route server answers with
 * (lib/server/testing/serve-routes.ts), so they drive the same bridge.
 */
export function answerWithHandler(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  handler: RouteHandler,
  params: Record<string, string>,
  configHeaders: ReadonlyArray<{ key: string; value: string }>,
  onError: (error: unknown) => void,
): void {
  answer(incoming, outgoing, handler, params, configHeaders).catch((error: unknown) => {
    onError(error);
    if (!outgoing.headersSent) {
      for (const { key, value } of configHeaders) outgoing.setHeader(key, value);
      outgoing.writeHead(500, { "content-type": "application/json" });
      outgoing.end(
        JSON.stringify({
          error: { code: "internal_error", message: "Something went wrong on the server." },
          pending: null,
        }),
      );
    } else {
      outgoing.destroy();
    }
  });
}

/** The route file's exports, or null when the module is not shaped as this lane expects. */
async function readUserland(built: BuiltRouteModule): Promise<Record<string, unknown> | null> {
  try {
    await built.routeModule?.ensureUserland?.();
    return built.routeModule?.userland ?? null;
  } catch {
    return null; // `userland` throws when the module is not loaded, and only ensureUserland loads it
  }
}

async function answer(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  handler: RouteHandler,
  params: Record<string, string>,
  configHeaders: ReadonlyArray<{ key: string; value: string }>,
): Promise<void> {
  // Aborted when the client goes before the answer is finished, as Next does: a stream then stops.
  const abort = new AbortController();
  outgoing.once("close", () => {
    if (!outgoing.writableFinished) abort.abort();
  });
  const response = await handler(toRequest(incoming, abort.signal), { params: Promise.resolve(params) });
  for (const { key, value } of configHeaders) {
    if (!response.headers.has(key)) outgoing.setHeader(key, value);
  }
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") outgoing.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) outgoing.setHeader("set-cookie", cookies);
  outgoing.statusCode = response.status;
  if (!response.body || incoming.method === "HEAD") {
    outgoing.end();
    return;
  }
  if (isCompressibleJson(response)) {
    // A JSON answer is whole before it is sent; compressed, like Next, from 1 KiB for a client that accepts gzip.
    outgoing.appendHeader("vary", "Accept-Encoding");
    let body = Buffer.from(await response.arrayBuffer());
    if (body.byteLength >= COMPRESSION_THRESHOLD_BYTES && acceptsGzip(incoming.headers["accept-encoding"])) {
      body = await gzipAsync(body);
      outgoing.setHeader("content-encoding", "gzip");
    }
    outgoing.setHeader("content-length", body.byteLength);
    outgoing.end(body);
    return;
  }
  // Streams (a run's events) are written as they come, and cancelled when the client goes, even
  // while the route has nothing to send.
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  outgoing.once("close", cancel);
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      if (!outgoing.write(chunk.value)) await waitForDrain(outgoing);
    }
  } finally {
    outgoing.off("close", cancel);
  }
  if (!outgoing.destroyed) outgoing.end();
}

/** The web `Request` a route handler takes: its URL on the host the client asked for, its body streamed. */
function toRequest(incoming: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else for (const each of value ?? []) headers.append(name, each);
  }
  const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
  return new Request(requestUrl(incoming), {
    method: incoming.method,
    headers,
    body: hasBody ? (Readable.toWeb(incoming) as ReadableStream<Uint8Array>) : undefined,
    signal,
    // A streamed body must say so; the route reads it (and refuses it past its limit) as it comes.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
}

function requestUrl(incoming: IncomingMessage): string {
  try {
    return new URL(incoming.url ?? "/", `http://${incoming.headers.host ?? "localhost"}`).toString();
  } catch {
    return new URL(incoming.url ?? "/", "http://localhost").toString(); // a Host no URL can hold
  }
}

function isCompressibleJson(response: Response): boolean {
  const type = response.headers.get("content-type") ?? "";
  return (
    /^application\/(?:[\w.+-]+\+)?json\b/i.test(type) &&
    !response.headers.has("content-encoding") &&
    !/\bno-transform\b/i.test(response.headers.get("cache-control") ?? "")
  );
}

/** Whether `Accept-Encoding` takes gzip (by name or `*`), not refused with `q=0`. */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? "").split(",").some((entry) => {
    const [coding, ...parameters] = entry.split(";").map((part) => part.trim().toLowerCase());
    if (coding !== "gzip" && coding !== "*") return false;
    const quality = parameters.find((parameter) => parameter.startsWith("q="));
    return quality === undefined || Number(quality.slice(2)) > 0;
  });
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a malformed escape reaches the route as it came, which refuses it as an id
  }
}

function waitForDrain(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off("drain", done);
      outgoing.off("close", done);
      resolve();
    };
    outgoing.on("drain", done);
    outgoing.on("close", done);
  });
}

/**
 * next.config.mjs's `headers()` as the build resolved them. A rule with `has` or `missing` would need
 * the request's headers, cookies and query matched as Next matches them; the lane refuses to start
 * rather than send a response without it.
 */
export function readConfigHeaders(distDir: string): ConfigHeaders[] {
  const manifest = readJson<{
    headers?: Array<{ regex: string; headers: ConfigHeaders["headers"]; has?: unknown; missing?: unknown }>;
  }>(path.join(distDir, "routes-manifest.json"));
  return (manifest.headers ?? []).map((rule) => {
    if (rule.has !== undefined || rule.missing !== undefined) {
      throw new Error(
        "next.config.mjs has a headers() rule with `has` or `missing`, which the API lane cannot apply; start with PLAYGROUND_API_LANE=off.",
      );
    }
    return { pattern: new RegExp(rule.regex), headers: rule.headers };
  });
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}
