// `npm run worker`: a process that takes over and drives runs whose worker is
// gone, and serves no pages, so execution scales apart from the web tier. Run
// any number of them (and of web servers) on one Postgres database; the web
// server does the same work too unless PLAYGROUND_BACKGROUND_WORK=off.
//
// Database: DATABASE_URL (a Postgres server), else the PGlite folder of
// PGLITE_DATA_DIR (one process at a time may hold a PGlite folder, so a worker
// beside a web server needs Postgres; beside one on the same folder it is refused).
// Metrics: PLAYGROUND_METRICS_PORT serves its own on 127.0.0.1, as a web server's.

import { once } from "node:events";
import { ExecutionSettingsError, readExecutionSettings } from "@/lib/server/config/execution-settings";
import { readMetricsPort, startLoopbackMetrics } from "@/lib/server/metrics/loopback-listener";
import { readMetrics } from "@/lib/server/metrics/read-metrics";
import { createNotifierFromEnv } from "@/lib/server/notifications/notifier-from-env";
import { startBackgroundWork } from "@/lib/server/ops/background-work";
import { createRunService } from "@/lib/server/runs/run-service";
import { databaseOptionsFromEnv, openDatabase } from "../db/client";
import { getMcpConnections, processModelsAndMcp } from "../lib/server/server-context";

const log = (message: string, detail?: Record<string, unknown>) =>
  process.stderr.write(`worker: ${message}${detail ? ` ${JSON.stringify(detail)}` : ""}\n`);

async function main() {
  let settings: ReturnType<typeof readExecutionSettings>;
  let metricsPort: number | null;
  try {
    settings = readExecutionSettings();
    metricsPort = readMetricsPort();
  } catch (error) {
    if (error instanceof ExecutionSettingsError) {
      log(error.message);
      process.exit(2);
    }
    throw error;
  }
  const handle = await openDatabase({ ...databaseOptionsFromEnv(), command: "npm run worker" });
  const service = createRunService(handle, { execution: settings, log, ...processModelsAndMcp() });
  // Its own metrics (tool calls, recoveries, lost claims, store writes, runs driven), serving before
  // it takes any run over; a port already taken is logged, and the work goes on without them.
  const metrics =
    metricsPort === null
      ? null
      : startLoopbackMetrics(
          metricsPort,
          () => readMetrics(handle.db, { runsDriven: service.runsDrivenHere }),
          log,
        );
  // A port it cannot listen on is logged by the listener's own error handler.
  const serving =
    metrics &&
    (await once(metrics, "listening").then(
      () => true,
      () => false,
    ));
  const stop = startBackgroundWork(service, settings, log, createNotifierFromEnv(handle.db, log));
  log("started", {
    instanceId: settings.instanceId,
    leaseMs: settings.leaseMs,
    sweepMs: settings.sweepMs,
    ...(serving ? { metrics: `http://127.0.0.1:${metricsPort}/metrics` } : {}),
  });

  const shutDown = async (signal: string) => {
    log(`${signal}: finishing the sweep in progress, then stopping`);
    await stop();
    metrics?.close();
    // A stdio MCP server's process ends with its connection.
    await getMcpConnections().close();
    await handle.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutDown("SIGTERM"));
  process.once("SIGINT", () => void shutDown("SIGINT"));
}

main().catch((error: unknown) => {
  log(`could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
