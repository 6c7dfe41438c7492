/**
 * A ten-second database outage with slow runs in flight, on a Postgres
 * cluster of this test's own (its own folder and port: the machine's shared
 * server is never touched). Two instances (the process-wide one, which the
 * route handlers use, and a second run service on its own connections), each
 * with its recovery sweep, drive runs of slow reads and non-idempotent
 * writes; a client with valid tokens keeps asking the API throughout. The
 * cluster is stopped for ~10 s and started again. What must hold: every run
 * ends COMPLETED, no call is left running, no non-idempotent call started
 * twice, every run's seqs are gap-free, and the client saw only 2xx and 503.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type DatabaseHandle, openDatabase } from "@/db/client";
import type { ScenarioInput } from "@/lib/runtime";
import { replaceDatabase } from "@/lib/server/database";
import { createMcpConnections } from "@/lib/server/mcp/mcp-connections";
import { startBackgroundWork } from "@/lib/server/ops/background-work";
import { createRunService, type RunService } from "@/lib/server/runs/run-service";
import { findFreePort } from "@/lib/server/testing/free-port";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import { createTestAccounts, type TestAccount } from "@/lib/server/testing/test-accounts";

/** initdb and pg_ctl of the newest installed server, or null. */
function findPostgresBinaries(): { initdb: string; pgCtl: string } | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = path.join(root, version, "bin");
    const initdb = path.join(bin, "initdb");
    const pgCtl = path.join(bin, "pg_ctl");
    if (existsSync(initdb) && existsSync(pgCtl)) return { initdb, pgCtl };
  }
  return null;
}

const binaries = findPostgresBinaries();
if (!binaries) {
  console.warn(
    "outage.chaos.test: skipped, no initdb/pg_ctl under /usr/lib/postgresql/*/bin (install the PostgreSQL server to run it)",
  );
}

const isRoot = process.getuid?.() === 0;
/** Postgres refuses to run as root: as root (CI), its tools run as the `postgres` user. */
function runAsPostgres(command: string, args: string[]): void {
  const [file, argv] = isRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  execFileSync(file, argv, { stdio: "pipe", timeout: 60_000 });
}

/**
 * Longer than the outage, as the default lease (30 s) is longer than the
 * reported one: a worker that went on past a lost outcome still held its run
 * when the database came back, and nothing fenced it out.
 */
const LEASE_MS = 12_000;
const SWEEP_MS = 400;
const OUTAGE_MS = 10_000;

const slowScan = {
  name: "slow_scan",
  description: "Scan slowly",
  resourceClass: "pure_read" as const,
  effect: "READ" as const,
  approval: "never" as const,
  delayMs: 1_200,
  result: { scanned: true },
};
/** A read still running when the database comes back: its wave's other outcomes were lost meanwhile. */
const longScan = { ...slowScan, name: "long_scan", delayMs: 13_000 };
const deploy = {
  name: "deploy",
  description: "Deploy a service (never twice)",
  resourceClass: "write" as const,
  effect: "NON_IDEMPOTENT_WRITE" as const,
  approval: "never" as const,
  delayMs: 1_200,
  result: { deployed: true },
};
/** A non-idempotent write still running when the database goes away: its outcome is lost with it. */
const longDeploy = { ...deploy, name: "long_deploy", delayMs: 7_000 };
const scan = (n: number) => ({ name: "slow_scan", arguments: { n } });

/**
 * Waves of slow reads and slow non-idempotent writes, one after another, then
 * `finish`; the first step is a wave of reads, one of which outlasts the
 * outage, or (`writeFirst`) a write the outage cuts off.
 */
function slowRun(name: string, writeFirst = false): ScenarioInput {
  return {
    name,
    tools: [slowScan, longScan, deploy, longDeploy],
    model: {
      kind: "scripted",
      turns: [
        writeFirst
          ? { calls: [{ name: "long_deploy", arguments: { target: "first" } }] }
          : { calls: [scan(1), { name: "long_scan", arguments: {} }, scan(2)] },
        { calls: [{ name: "deploy", arguments: { target: "a" } }] },
        { calls: [scan(4), scan(5)] },
        { calls: [{ name: "deploy", arguments: { target: "b" } }] },
        { calls: [scan(6)] },
        { calls: [{ name: "deploy", arguments: { target: "c" } }] },
        { calls: [{ name: "finish", arguments: { summary: "done" } }] },
      ],
    },
  };
}

describe.skipIf(!binaries)(
  "a ten-second database outage with slow runs in flight (own Postgres cluster)",
  () => {
    const folder = mkdtempSync(path.join(tmpdir(), "tp-outage-"));
    const dataDir = path.join(folder, "data");
    let port = 0;
    let url = "";
    let admin: ReturnType<typeof postgres> | undefined;
    let processDatabase: Promise<DatabaseHandle> | undefined;
    let second: DatabaseHandle | undefined;
    const stops: Array<() => Promise<void>> = [];

    const pgCtl = (...args: string[]) => runAsPostgres(binaries?.pgCtl ?? "pg_ctl", ["-D", dataDir, ...args]);
    const startCluster = () =>
      pgCtl(
        "-l",
        path.join(folder, "postgres.log"),
        "-o",
        `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off`,
        "-w",
        "start",
      );
    const stopCluster = () => pgCtl("-m", "fast", "-w", "stop");

    beforeAll(async () => {
      // The cluster's own user writes its folder and socket here.
      chmodSync(folder, 0o777);
      runAsPostgres(binaries?.initdb ?? "initdb", [
        "-D",
        dataDir,
        "-A",
        "trust",
        "-U",
        "postgres",
        "--no-sync",
      ]);
      port = await findFreePort();
      startCluster();
      url = `postgres://postgres@127.0.0.1:${port}/postgres`;
      admin = postgres(url, { max: 1, onnotice: () => {} });
    }, 120_000);

    afterAll(async () => {
      for (const stop of stops) await stop().catch(() => {});
      const first = processDatabase;
      replaceDatabase(undefined);
      (await import("@/lib/server/server-context")).resetServerContext();
      await (await first?.catch(() => undefined))?.close().catch(() => {});
      await second?.close().catch(() => {});
      await admin?.end({ timeout: 1 }).catch(() => {});
      try {
        stopCluster();
      } catch {
        // Already stopped (a failed start): the folder goes anyway.
      }
      rmSync(folder, { recursive: true, force: true });
      vi.unstubAllEnvs();
    }, 60_000);

    it("leaves every run finished with every outcome stored, no call run twice, and clients only 2xx or 503", async () => {
      vi.stubEnv("PLAYGROUND_LEASE_MS", String(LEASE_MS));
      vi.stubEnv("PLAYGROUND_INSTANCE_ID", "first");
      // The first instance is the process-wide one: the route handlers and their identity checks use it.
      processDatabase = openDatabase({ url });
      replaceDatabase(processDatabase);
      await processDatabase;
      const accounts = await createTestAccounts(["operator", "viewer"]);
      const { getRunService } = await import("@/lib/server/server-context");
      const runsRoute = await import("@/app/api/runs/route");
      const first = await getRunService();
      second = await openDatabase({ url });
      const secondService: RunService = createRunService(second, {
        execution: { leaseMs: LEASE_MS, instanceId: "second" },
        modelEndpoints: { endpoints: new Map(), problem: null },
        mcp: { servers: { servers: new Map(), problem: null }, connections: createMcpConnections(new Map()) },
      });
      const quiet = () => {};
      for (const [service, instanceId] of [
        [first, "first"],
        [secondService, "second"],
      ] as const) {
        stops.push(startBackgroundWork(service, { leaseMs: LEASE_MS, sweepMs: SWEEP_MS, instanceId }, quiet));
      }

      // Two runs started through the API on the first instance, two on the second.
      const post = (account: TestAccount, body: unknown) =>
        runsRoute.POST(
          new Request("http://localhost/api/runs", {
            method: "POST",
            headers: { ...account.headers, "content-type": "application/json" },
            body: JSON.stringify(body),
          }),
        );
      const runIds: string[] = [];
      for (const [name, writeFirst] of [
        ["outage 1", false],
        ["outage 2", true],
      ] as const) {
        const response = await post(accounts.operator, slowRun(name, writeFirst));
        expect(response.status).toBe(201);
        runIds.push(((await response.json()) as { runId: string }).runId);
      }
      for (const [name, writeFirst] of [
        ["outage 3", false],
        ["outage 4", true],
      ] as const) {
        runIds.push((await secondService.startRun(buildScenario(slowRun(name, writeFirst)))).runId);
      }

      // Every run has a call in flight before the database goes away.
      await until(async () => {
        const [row] = await (admin ?? postgres(url))`
        select count(distinct run_id)::int as started from tool_calls where status = 'running'`;
        return row?.started === runIds.length;
      }, "every run to have a call running");

      // A client with valid tokens asks all along: lists, and new runs.
      const seen: Array<{ what: string; status: number; body?: unknown }> = [];
      const record = async (what: string, response: Response) =>
        seen.push({
          what,
          status: response.status,
          ...(response.status >= 300 && response.status !== 503
            ? { body: await response.clone().json() }
            : {}),
        });
      let isBack = false;
      let isAsking = true;
      const asking = (async () => {
        while (isAsking) {
          const listed = await runsRoute.GET(
            new Request("http://localhost/api/runs?limit=5", { headers: accounts.viewer.headers }),
          );
          await record("GET /api/runs", listed);
          const started = await post(accounts.operator, slowRun("during the outage"));
          await record("POST /api/runs", started);
          if (started.status === 201) {
            runIds.push(((await started.json()) as { runId: string }).runId);
            // One run started once the database is back is enough: the client stops asking.
            if (isBack) isAsking = false;
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      })();

      await admin?.end({ timeout: 1 });
      admin = undefined;
      stopCluster();
      // The outage itself: the cluster stays down this long whatever happens meanwhile.
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      startCluster();
      isBack = true;
      admin = postgres(url, { max: 1, onnotice: () => {} });
      const sql = admin;
      await asking;

      // Waiting on outcomes: every run, including those started during the outage, ends.
      await until(
        async () => {
          const rows = await sql`select status from runs where id = any(${runIds}::uuid[])`;
          return rows.length === runIds.length && rows.every((row) => row.status !== "RUNNING");
        },
        "every run to end",
        120_000,
        async () =>
          JSON.stringify(
            await sql`select r.id, r.status, r.error, r.lease_expires_at < now() as lapsed,
            (select type from run_events e where e.run_id = r.id order by seq desc limit 1) as last_event
            from runs r where r.id = any(${runIds}::uuid[])`,
          ),
      );

      const runs = await sql`select id, status, error from runs where id = any(${runIds}::uuid[])`;
      expect(runs.map((run) => run.status)).toEqual(runIds.map(() => "COMPLETED"));
      const running =
        await sql`select run_id, step_index, batch_index from tool_calls where status = 'running'`;
      expect(running).toEqual([]);
      // A call's start is stored before it is sent: two starts of one non-idempotent call would be two sends.
      const repeated = await sql`
      select e.run_id, e.payload->>'stepIndex' as step, e.payload->>'batchIndex' as batch, count(*)::int as starts
      from run_events e join tool_calls c on c.run_id = e.run_id
        and c.step_index = (e.payload->>'stepIndex')::int and c.batch_index = (e.payload->>'batchIndex')::int
      where e.type = 'call_started' and c.name in ('deploy', 'long_deploy')
      group by 1, 2, 3 having count(*) > 1`;
      expect(repeated).toEqual([]);
      const gaps = await sql`
      select run_id, count(*)::int as events, max(seq) as last, min(seq) as first
      from run_events where run_id = any(${runIds}::uuid[]) group by run_id
      having count(*) <> max(seq) or min(seq) <> 1`;
      expect(gaps).toEqual([]);
      // Every deploy that was cut off is said to be, never silently dropped or run again.
      const deploys = await sql`
      select status, error->>'code' as code from tool_calls where name in ('deploy', 'long_deploy')`;
      for (const call of deploys) expect(["ok", "error"]).toContain(call.status);

      const [recovered] = await sql`
      select count(*)::int as recoveries, count(distinct run_id)::int as runs from run_events
      where type = 'run_recovered' and run_id = any(${runIds}::uuid[])`;
      console.info(
        `outage.chaos: ${runIds.length} runs, ${recovered?.recoveries} recoveries of ${recovered?.runs} runs, ` +
          `${deploys.filter((call) => call.code === "interrupted").length} of ${deploys.length} deploys interrupted, ` +
          `${seen.filter((entry) => entry.status === 503).length} of ${seen.length} client requests answered 503`,
      );
      const refused = seen.filter(({ status }) => !((status >= 200 && status < 300) || status === 503));
      expect(refused).toEqual([]);
      // The client did see the outage: some answer during it was 503.
      expect(seen.map((entry) => entry.status)).toContain(503);
    }, 300_000);
  },
);

async function until(
  condition: () => Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
  describeState: () => Promise<string> = async () => "",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await condition()) return;
    } catch {
      // The database may be coming back: ask again.
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what} ${await describeState().catch(String)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
