import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "@/db/client";
import { createRunRepository } from "@/db/repositories/run-repository";
import { openTestDatabase } from "@/db/testing/test-database";
import { DEFAULT_LIMITS, readRunReport } from "@/lib/runtime";
import { buildScenario } from "@/lib/runtime/testing/scenario-harness";
import { findFreePort } from "@/lib/server/testing/free-port";

const environment = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extra };
  if (!extra.DATABASE_URL) delete env.DATABASE_URL;
  return env;
};

/** A database holding one run whose worker died before doing anything: its lease has run out. */
async function databaseWithAnOrphanedRun(): Promise<{
  env: Record<string, string>;
  runId: string;
  reopen(): Promise<DatabaseHandle>;
  close(): Promise<void>;
}> {
  const scenario = buildScenario({
    name: "orphaned",
    workspace: { "a.txt": "A" },
    model: {
      kind: "scripted",
      turns: [
        { calls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
        { calls: [{ name: "finish", arguments: { summary: "done" } }] },
      ],
    },
  });
  const runId = crypto.randomUUID();
  const create = (handle: DatabaseHandle) =>
    createRunRepository(handle.db).createRun({
      id: runId,
      name: scenario.name,
      scenario,
      limits: DEFAULT_LIMITS,
      claimToken: "the-dead-worker",
      leaseMs: 1,
      startedBy: null,
      files: [{ path: "a.txt", content: "A" }],
    });
  if (process.env.TEST_DATABASE_URL) {
    const handle = await openTestDatabase();
    await create(handle);
    const url = handle.url ?? "";
    return { env: { DATABASE_URL: url }, runId, reopen: async () => handle, close: () => handle.close() };
  }
  // PGlite admits one process at a time: the test lets go of the folder while the worker has it.
  const dataDir = path.join(mkdtempSync(path.join(tmpdir(), "tp-worker-")), "pglite");
  const handle = await openDatabase({ dataDir });
  await create(handle);
  await handle.close();
  let reopened: DatabaseHandle | undefined;
  return {
    env: { PGLITE_DATA_DIR: dataDir },
    runId,
    reopen: async () => {
      reopened = await openDatabase({ dataDir });
      return reopened;
    },
    close: async () => reopened?.close(),
  };
}

describe("npm run worker", () => {
  it.each([
    [
      "PLAYGROUND_LEASE_MS",
      "soon",
      'PLAYGROUND_LEASE_MS must be a whole number of milliseconds, at least 100 (got "soon")',
    ],
    [
      "PLAYGROUND_METRICS_PORT",
      "metrics",
      'PLAYGROUND_METRICS_PORT must be a port number (1 to 65535), not "metrics"',
    ],
  ])(
    "refuses a setting it cannot use, naming it: %s=%s",
    (name, value, message) => {
      const result = spawnSync("npm", ["run", "--silent", "worker"], {
        encoding: "utf8",
        env: environment({ [name]: value }),
      });
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(message);
    },
    90_000,
  ); // one worker process: its start alone can take tens of seconds on a busy machine

  it("takes over a run whose worker died, drives it to the end, counts it in its metrics, and stops cleanly on SIGTERM", async () => {
    const database = await databaseWithAnOrphanedRun();
    const metricsPort = await findFreePort();
    let worker: ChildProcess | undefined;
    try {
      // What `npm run worker` runs, started directly: npm itself would die of the signal it passes on.
      worker = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "bin/worker.ts"], {
        env: environment({
          ...database.env,
          PLAYGROUND_RECOVERY_SWEEP_MS: "100",
          PLAYGROUND_INSTANCE_ID: "worker-1",
          PLAYGROUND_METRICS_PORT: String(metricsPort),
        }),
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      const started = worker;
      const tookOver = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the worker took nothing over:\n${stderr}`)), 30_000);
        started.stderr?.on("data", (chunk) => {
          stderr += String(chunk);
          if (stderr.includes("took over a run")) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      await tookOver;
      // Its own metrics, on loopback, without credentials: the run it took over is counted.
      expect(stderr).toContain(`"metrics":"http://127.0.0.1:${metricsPort}/metrics"`);
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toMatch(/^playground_recoveries_total 1$/m);
      expect(text).toContain("# TYPE playground_runs_driven gauge");
      const exited = new Promise<number | null>((resolve) => started.once("exit", resolve));
      started.kill("SIGTERM");
      expect(await exited).toBe(0);

      const handle = await database.reopen();
      const report = await readRunReport(createRunRepository(handle.db), database.runId);
      expect(report).toMatchObject({ status: "COMPLETED", metrics: { recoveries: 1 } });
      const events = await createRunRepository(handle.db).readEvents(database.runId, 0);
      expect(events.find((event) => event.type === "run_recovered")?.payload).toMatchObject({
        by: "worker-1",
      });
    } finally {
      // A check that failed leaves no worker behind on the test's database.
      if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill("SIGKILL");
      await database.close();
    }
  }, 180_000); // a run driven to its end by a second process, then a clean stop
});
