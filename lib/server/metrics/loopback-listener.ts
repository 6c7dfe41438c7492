import "server-only";
import { createServer, type Server } from "node:http";
import { ExecutionSettingsError } from "@/lib/server/config/execution-settings";

/**
 * The port of PLAYGROUND_METRICS_PORT, or null when it is unset or 0 (no listener, as before it was
 * checked): a value that is not a port stops the process's start, named, rather than leaving it
 * without the metrics it was asked to serve.
 */
export function readMetricsPort(env: Record<string, string | undefined> = process.env): number | null {
  const value = env.PLAYGROUND_METRICS_PORT?.trim();
  if (!value || value === "0") return null;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 1 && port <= 65_535)) {
    throw new ExecutionSettingsError(
      `PLAYGROUND_METRICS_PORT must be a port number (1 to 65535), not "${value}".`,
    );
  }
  return port;
}

/**
 * Serves `GET /metrics` without credentials on 127.0.0.1 only, for a
 * Prometheus agent on the same machine (the app's own `/api/metrics` needs
 * an admin's token: a forwarded-for header cannot prove a request is local,
 * a socket bound to loopback can). `read` gives the process's metrics: a web
 * server's (`readProcessMetrics`) or a worker's, on its own database handle.
 */
export function startLoopbackMetrics(
  port: number,
  read: () => Promise<{ contentType: string; text: string }>,
  log: (message: string, detail?: Record<string, unknown>) => void,
): Server {
  const server = createServer(async (request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("Only GET /metrics is served here.\n");
      return;
    }
    try {
      const { contentType, text } = await read();
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
