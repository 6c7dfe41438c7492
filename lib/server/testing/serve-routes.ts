import { createServer, type Server } from "node:http";

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
 * talks to in tests. Paths match whole, `:id` being any segment.
 */
export async function serveRoutes(
  routes: readonly ServedRoute[],
): Promise<{ url: string; close(): Promise<void> }> {
  const compiled = routes.map((route) => ({
    ...route,
    pattern: new RegExp(`^${route.path.replace(":id", "([^/]+)")}$`),
  }));
  const server: Server = createServer(async (incoming, outgoing) => {
    try {
      const url = new URL(incoming.url ?? "/", "http://127.0.0.1");
      const route = compiled.find(
        (candidate) => candidate.method === incoming.method && candidate.pattern.test(url.pathname),
      );
      if (!route) {
        outgoing.writeHead(404, { "content-type": "application/json" });
        outgoing.end(
          JSON.stringify({ error: { code: "not_found", message: "no such route" }, pending: null }),
        );
        return;
      }
      const id = route.pattern.exec(url.pathname)?.[1] ?? "";
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      // Aborted only when the client goes before the answer is finished, as Next does: a close
      // after the end is the server's own, and aborting then would cost every request a DOMException.
      const abort = new AbortController();
      outgoing.once("close", () => {
        if (!outgoing.writableFinished) abort.abort();
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (typeof value === "string") headers.set(name, value);
      }
      const request = new Request(url.toString(), {
        method: incoming.method,
        headers,
        body: incoming.method === "GET" ? undefined : Buffer.concat(chunks),
        signal: abort.signal,
      });
      const response = await route.handler(request, { params: Promise.resolve({ id }) });
      outgoing.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      // Written as it comes, so an event stream is one too (it ends when the client goes).
      const reader = response.body?.getReader();
      for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
        if (outgoing.destroyed) {
          await reader?.cancel();
          break;
        }
        outgoing.write(chunk.value);
      }
      outgoing.end();
    } catch (error) {
      outgoing.writeHead(500, { "content-type": "text/plain" });
      outgoing.end(String(error));
    }
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
