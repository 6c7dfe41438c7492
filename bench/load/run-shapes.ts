// `npm run load:shapes -- SHAPE` (after `npm run build`): the load generator's ramp against real
// deployments of the production build (`npm start`), in the three shapes of
// docs/performance.md#three-shapes:
//   one-embedded         one instance on the embedded database (a PGlite folder of its own);
//   three-postgres       three instances and a worker on one Postgres database;
//   three-postgres-deep  the same with 100,000 runs waiting in the inbox and 1,000 inbox streams
//                        held open on each instance.
// The Postgres shapes make a database of their own on the server DATABASE_URL names and drop it after.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql as drizzleSql } from "drizzle-orm";
import postgres from "postgres";
import { SERVER_NODE_FLAGS } from "@/lib/server/testing/production-start";
import { startProductionInstance, stopProcess } from "../production-instance";
import { formatRamp, rampLoad, rampOptionsFromEnv } from "./ramp";

const SHAPES = ["one-embedded", "three-postgres", "three-postgres-deep"] as const;
type ShapeName = (typeof SHAPES)[number];
const ADMIN = { email: "load-admin@load.example", password: "load-admin-password-1" };
const WAITING = Number(process.env.LOAD_WAITING ?? 100_000);
const STREAMS_PER_INSTANCE = Number(process.env.LOAD_STREAMS_PER_INSTANCE ?? 1_000);

const log = (message: string) => process.stderr.write(`load:shapes: ${message}\n`);

function startWorker(env: Record<string, string>): ChildProcess {
  return spawn(
    process.execPath,
    [...SERVER_NODE_FLAGS, "--conditions=react-server", "--import", "tsx", "bin/worker.ts"],
    {
      env: { ...process.env, LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
}

/** Signs the seeded admin in and makes an agent and an approver with a token each, over the HTTP API. */
async function makeTokens(url: string): Promise<{ agentToken: string; approverToken: string }> {
  const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify(ADMIN),
  });
  if (!signIn.ok) throw new Error(`sign-in: ${signIn.status} ${await signIn.text()}`);
  const cookie = signIn.headers
    .getSetCookie()
    .map((part) => part.split(";")[0])
    .join("; ");
  const post = async (route: string, body: unknown) => {
    const response = await fetch(`${url}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: url, cookie },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<{ token?: string }>;
  };
  const tokens: Record<string, string> = {};
  for (const role of ["agent", "approver"] as const) {
    const email = `load-${role}@load.example`;
    await post("/api/users", { email, name: `load ${role}`, role, password: "load-password-1" });
    tokens[role] = (await post("/api/tokens", { email, name: `load ${role}` })).token ?? "";
  }
  return { agentToken: tokens.agent ?? "", approverToken: tokens.approver ?? "" };
}

/**
 * One real waiting run made through the app's own service, and `WAITING - 1` copies of it waiting
 * longer (the inbox reads only runs): the runs the load makes are the newest, on the inbox's first page.
 */
async function seedWaiting(databaseUrl: string): Promise<void> {
  const { openDatabase } = await import("@/db/client");
  const { createRunService } = await import("@/lib/server/runs/run-service");
  const { processMcp } = await import("@/lib/server/server-context");
  const { buildScenario } = await import("@/lib/runtime/testing/scenario-harness");
  const { GATED } = await import("../shapes");
  const handle = await openDatabase({ url: databaseUrl });
  try {
    const service = createRunService(handle, {
      modelEndpoints: { endpoints: new Map(), problem: null },
      mcp: processMcp(),
      execution: { leaseMs: 30_000, instanceId: "load-seed" },
      log: () => {},
    });
    const { runId, settled } = await service.startRun(buildScenario(GATED));
    if ((await settled) !== "WAITING_FOR_APPROVAL") throw new Error("the seeded run did not wait");
    await handle.db.execute(drizzleSql`
      insert into runs (id, name, status, scenario, limits, state, waiting_since)
      select gen_random_uuid(), name || ' ' || n, status, scenario, limits, state, now() - (n || ' seconds')::interval
      from runs, generate_series(1, ${WAITING - 1}::int) as n where id = ${runId}`);
    await handle.db.execute(drizzleSql`vacuum analyze runs`);
  } finally {
    await handle.close();
  }
}

/** Holds `count` inbox streams open on `url`; each is counted once its first bytes arrive. */
async function holdStreams(url: string, token: string, count: number): Promise<() => void> {
  const controller = new AbortController();
  let opened = 0;
  await Promise.all(
    Array.from({ length: count }, async () => {
      const response = await fetch(`${url}/api/inbox/events`, {
        headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
        signal: controller.signal,
      });
      if (!response.ok || !response.body) throw new Error(`an inbox stream: ${response.status}`);
      const reader = response.body.getReader();
      await reader.read();
      opened += 1;
      void (async () => {
        try {
          while (!(await reader.read()).done) {}
        } catch {
          // aborted at the end
        }
      })();
    }),
  );
  log(`${opened} inbox streams open on ${url}`);
  return () => controller.abort();
}

async function main() {
  const shape = process.argv[2] as ShapeName | undefined;
  if (!shape || !SHAPES.includes(shape)) {
    log(`usage: npm run load:shapes -- ${SHAPES.join("|")}`);
    process.exit(2);
  }
  if (!existsSync(path.join(".next", "BUILD_ID"))) {
    log("no production build here: run `npm run build` first");
    process.exit(2);
  }
  const server = process.env.DATABASE_URL;
  if (shape !== "one-embedded" && !server) {
    log(`${shape} needs DATABASE_URL naming a Postgres server (a database of its own is made there)`);
    process.exit(2);
  }
  // Undone in this order at the end: the streams, the processes, then their data.
  const stopStreams: Array<() => void> = [];
  const children: ChildProcess[] = [];
  const removeData: Array<() => Promise<void> | void> = [];
  try {
    const seedAdmin = { PLAYGROUND_ADMIN_EMAIL: ADMIN.email, PLAYGROUND_ADMIN_PASSWORD: ADMIN.password };
    let env: Record<string, string>;
    let sql: postgres.Sql | null = null;
    if (shape === "one-embedded") {
      const folder = mkdtempSync(path.join(tmpdir(), "load-pglite-"));
      removeData.push(() => rmSync(folder, { recursive: true, force: true }));
      env = { DATABASE_URL: "", PGLITE_DATA_DIR: folder };
    } else {
      const name = `tp_load_${Date.now()}`;
      const admin = postgres(server ?? "", { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database ${name}`);
      removeData.push(async () => {
        await sql?.end({ timeout: 5 });
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end({ timeout: 5 });
      });
      const url = new URL(server ?? "");
      url.pathname = `/${name}`;
      env = { DATABASE_URL: url.toString(), PGLITE_DATA_DIR: "" };
      sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
    }
    if (shape === "three-postgres-deep") {
      log(`seeding ${WAITING.toLocaleString("en")} waiting runs`);
      await seedWaiting(env.DATABASE_URL ?? "");
      env = {
        ...env,
        PLAYGROUND_STREAMS_PER_IDENTITY: String(STREAMS_PER_INSTANCE * 3 + 100),
        PLAYGROUND_STREAMS_PER_INSTANCE: String(STREAMS_PER_INSTANCE + 100),
      };
    }
    const count = shape === "one-embedded" ? 1 : 3;
    const first = await startProductionInstance({ ...env, ...seedAdmin });
    children.push(first.child);
    const instances = [first];
    for (let index = 1; index < count; index += 1) {
      const next = await startProductionInstance(env);
      children.push(next.child);
      instances.push(next);
    }
    if (shape !== "one-embedded") children.push(startWorker(env));
    const urls = instances.map((instance) => instance.url);
    log(`${urls.length} instance(s): ${urls.join(", ")}`);
    const tokens = await makeTokens(first.url);
    if (shape === "three-postgres-deep") {
      for (const url of urls)
        stopStreams.push(await holdStreams(url, tokens.approverToken, STREAMS_PER_INSTANCE));
    }
    const options = rampOptionsFromEnv();
    const ramp = await rampLoad({ ...options, ...tokens, urls, sql });
    process.stdout.write(`\nshape: ${shape}\n${formatRamp(ramp, options.p99Ms)}`);
  } finally {
    for (const stop of stopStreams) stop();
    await Promise.all(children.map(stopProcess));
    for (const remove of removeData) await remove();
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
