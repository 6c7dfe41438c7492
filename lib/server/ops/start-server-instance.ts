import "server-only";
import { Server as HttpServer } from "node:http";
import { Server as HttpsServer } from "node:https";
import { FolderInUseError } from "@/db/folder-in-use-error";
import { seedAdminFromEnv } from "@/lib/server/auth/accounts";
import { readTrustedProxyHops, stampPeerAddresses } from "@/lib/server/auth/client-address";
import { getDatabase } from "@/lib/server/database";
import { readMetricsPort, startLoopbackMetrics } from "@/lib/server/metrics/loopback-listener";
import { readProcessMetrics } from "@/lib/server/metrics/read-metrics";
import { getAuth, startServerBackgroundWork } from "@/lib/server/server-context";
import { startTracing } from "./start-tracing";

/**
 * What a web server does once, when it starts (instrumentation.ts): starts
 * exporting traces when OTEL_EXPORTER_OTLP_ENDPOINT is set, opens the
 * database and applies migrations before the first request, so no request
 * pays PGlite's start-up, seeds the first administrator from the environment
 * on a fresh database, starts the loopback metrics listener when
 * PLAYGROUND_METRICS_PORT is set, and starts the background work (taking over
 * runs whose worker is gone) unless PLAYGROUND_BACKGROUND_WORK=off leaves that
 * to `npm run worker`. An embedded database folder that another process holds
 * stops it at once: it could never serve from that folder.
 */
export async function startServerInstance(): Promise<void> {
  // Before any request: sign-in limits key on the socket's address, which only the server knows.
  stampPeerAddresses(HttpServer);
  stampPeerAddresses(HttpsServer); // `next start --experimental-https`, `next dev --experimental-https`
  // A PLAYGROUND_TRUSTED_PROXY that is not a number, or a PLAYGROUND_METRICS_PORT that is not a port,
  // stops the start, said plainly: thrown from here, it would leave Next answering every request 500.
  let metricsPort: number | null;
  try {
    readTrustedProxyHops();
    metricsPort = readMetricsPort();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  // First, so every span from here on is exported (when an OTLP endpoint is configured).
  startTracing();
  try {
    const handle = await getDatabase();
    if (await seedAdminFromEnv(await getAuth(), handle.db)) {
      console.info(`created the first administrator, ${process.env.PLAYGROUND_ADMIN_EMAIL}`);
    }
    if (metricsPort !== null) {
      startLoopbackMetrics(metricsPort, readProcessMetrics, (message, detail) =>
        console.warn(message, detail ?? ""),
      );
    }
    if (process.env.PLAYGROUND_BACKGROUND_WORK !== "off") await startServerBackgroundWork();
  } catch (error) {
    if (FolderInUseError.isInstance(error)) {
      console.error(error.message);
      process.exit(1);
    }
    // The health route reports it; requests retry the open.
    console.error("database failed to open at start-up:", error);
  }
}
