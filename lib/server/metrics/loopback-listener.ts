import "server-only";
import { createServer, type Server } from "node:http";
import { readProcessMetrics } from "./read-metrics";

/**
 * Serves `GET /metrics` without credentials on 127.0.0.1 only, for a
 * Prometheus agent on the same machine (the app's own `/api/metrics` needs
 * an admin's token: a forwarded-for header cannot prove a request is local,
 * a socket bound to loopback can).
 */
export function startLoopbackMetrics(
  port: number,
  log: (message: string, detail?: Record<string, unknown>) => void,
): Server {
  const server = createServer(async (request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("Only GET /metrics is served here.\n");
      return;
    }
    try {
      const { contentType, text } = await readProcessMetrics();
      response.writeHead(200, { "content-type": contentType }).end(text);
    } catch (error) {
      log("metrics could not be read", { error: String(error) });
      response.writeHead(503, { "content-type": "text/plain" }).end("The metrics could not be read.\n");
    }
  });
  server.on("error", (error) => log("the loopback metrics listener stopped", { port, error: String(error) }));
  server.listen(port, "127.0.0.1");
  return server;
}
