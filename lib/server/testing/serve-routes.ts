import { createServer, type Server } from "node:http";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { answerUnknownApiPath } from "@/lib/http/unknown-api-path";
import { answerWithHandler, type RouteHandler } from "../../../bin/api-lane.ts";

type Handler = (request: Request, context: { params: Promise<{ id: string }> }) => Promise<Response>;

/** One route: its method, a path pattern (`:id` captures the run id) and its handler. */
export interface ServedRoute {
  method: string;
  path: string;
  handler: Handler;
}

/**
 * Serves route handlers over real HTTP on 127.0.0.1 without building the
 * app: what a client in another process (the Python example, the bench)
 * talks to in tests. Paths match whole, `:id` being any segment. A method a path is not served
 * with is answered as the app's routes answer it: HEAD with its GET (Next's default), OPTIONS with
 * `Allow`, any other with the 405 (lib/http/answer-other-methods.ts); a path not served at all as
 * the app answers an /api path no route matches, with its 404 (lib/http/unknown-api-path.ts).
 */
export async function serveRoutes(
  routes: readonly ServedRoute[],
): Promise<{ url: string; close(): Promise<void> }> {
  const compiled = routes.map((route) => ({
    ...route,
    pattern: new RegExp(`^${route.path.replace(":id", "([^/]+)")}$`),
  }));
  const server: Server = createServer((incoming, outgoing) => {
    const url = new URL(incoming.url ?? "/", "http://127.0.0.1");
    const atPath = compiled.filter((candidate) => candidate.pattern.test(url.pathname));
    const taken: Record<string, Handler> = Object.fromEntries(
      atPath.map((route) => [route.method, route.handler]),
    );
    const others: Record<string, unknown> = atPath.length > 0 ? answerOtherMethods(taken) : {};
    const method = incoming.method ?? "";
    const handler =
      taken[method] ?? (method === "HEAD" ? taken.GET : undefined) ?? others[method] ?? answerUnknownApiPath;
    const id = atPath[0]?.pattern.exec(url.pathname)?.[1] ?? "";
    // The production server's own bridge (bin/api-lane.ts): the request's body streamed, its signal
    // aborted only when the client goes before the answer is finished, the answer written as it
    // comes (so an event stream is one too), JSON from 1 KiB gzipped for a client that asks.
    answerWithHandler(incoming, outgoing, handler as RouteHandler, { id }, [], (error) =>
      console.error("a served route failed:", error),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The agent API's routes (docs/agent-api.md), for {@link serveRoutes}. */
export async function agentApiRoutes(): Promise<ServedRoute[]> {
  const base = "/api/agent/runs";
  const open = await import("@/app/api/agent/runs/route");
  const run = await import("@/app/api/agent/runs/[id]/route");
  const next = await import("@/app/api/agent/runs/[id]/next/route");
  const turns = await import("@/app/api/agent/runs/[id]/turns/route");
  const finish = await import("@/app/api/agent/runs/[id]/finish/route");
  const reports = await import("@/app/api/agent/runs/[id]/reports/route");
  const heartbeat = await import("@/app/api/agent/runs/[id]/heartbeat/route");
  const cancel = await import("@/app/api/agent/runs/[id]/cancel/route");
  return [
    { method: "POST", path: base, handler: open.POST as Handler },
    { method: "GET", path: `${base}/:id`, handler: run.GET as Handler },
    { method: "GET", path: `${base}/:id/next`, handler: next.GET as Handler },
    { method: "POST", path: `${base}/:id/turns`, handler: turns.POST as Handler },
    { method: "POST", path: `${base}/:id/finish`, handler: finish.POST as Handler },
    { method: "POST", path: `${base}/:id/reports`, handler: reports.POST as Handler },
    { method: "POST", path: `${base}/:id/heartbeat`, handler: heartbeat.POST as Handler },
    { method: "POST", path: `${base}/:id/cancel`, handler: cancel.POST as Handler },
  ];
}
