/**
 * Runs once when a server instance starts: starts exporting traces when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, opens the database and applies
 * migrations before the first request, so no request pays PGlite's start-up,
 * seeds the first administrator from the environment on a fresh database,
 * starts the loopback metrics listener when PLAYGROUND_METRICS_PORT is set,
 * and starts the background work (taking over runs whose worker is gone)
 * unless PLAYGROUND_BACKGROUND_WORK=off leaves that to `npm run worker`.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // First, so every span from here on is exported (when an OTLP endpoint is configured).
  const { startTracing } = await import("./lib/server/start-tracing");
  startTracing();
  const { getDatabase } = await import("./db/client");
  try {
    const handle = await getDatabase();
    const { getAuth } = await import("./lib/server/auth/auth");
    const { seedAdminFromEnv } = await import("./lib/server/auth/accounts");
    if (await seedAdminFromEnv(await getAuth(), handle.db)) {
      console.info(`created the first administrator, ${process.env.PLAYGROUND_ADMIN_EMAIL}`);
    }
    const metricsPort = Number(process.env.PLAYGROUND_METRICS_PORT);
    if (Number.isInteger(metricsPort) && metricsPort > 0) {
      const { startLoopbackMetrics } = await import("./lib/server/metrics/loopback-listener");
      startLoopbackMetrics(metricsPort, (message, detail) => console.warn(message, detail ?? ""));
    }
    if (process.env.PLAYGROUND_BACKGROUND_WORK !== "off") {
      const { startServerBackgroundWork } = await import("./lib/server/get-run-service");
      await startServerBackgroundWork();
    }
  } catch (error) {
    // The health route reports it; requests retry the open.
    console.error("database failed to open at start-up:", error);
  }
}
