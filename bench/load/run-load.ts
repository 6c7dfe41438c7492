// `npm run load` (DATABASE_URL = a Postgres database the instances use): ramps the load generator's
// traffic (bench/load/drive-load.ts) until the p99 of the agents' requests that never wait (open a run, report outcomes) passes LOAD_P99_MS, printing one row per
// step with the database's own figures from pg_stat_*, and names the knee: the last step within the
// objective. With LOAD_URLS (comma-separated running instances) and LOAD_AGENT_TOKEN and
// LOAD_APPROVER_TOKEN it drives those; without, it serves the app's routes itself on DATABASE_URL
// (one instance, no Next router) and makes its own accounts. docs/performance.md#the-load-generator.
import postgres from "postgres";
import { summarize } from "../table";
import { checkAgainstScripts, driveLoad, type LoadResult } from "./drive-load";

const P99_MS = Number(process.env.LOAD_P99_MS ?? 250);
const MAX_AGENTS = Number(process.env.LOAD_MAX_AGENTS ?? 64);
const WIDTH = Number(process.env.LOAD_WIDTH ?? 8);
const THINK_MS = Number(process.env.LOAD_THINK_MS ?? 200);

async function instances(): Promise<{
  urls: string[];
  agentToken: string;
  approverToken: string;
  close(): Promise<void>;
}> {
  if (process.env.LOAD_URLS) {
    const agentToken = process.env.LOAD_AGENT_TOKEN;
    const approverToken = process.env.LOAD_APPROVER_TOKEN;
    if (!agentToken || !approverToken)
      throw new Error("LOAD_URLS needs LOAD_AGENT_TOKEN and LOAD_APPROVER_TOKEN");
    return { urls: process.env.LOAD_URLS.split(","), agentToken, approverToken, close: async () => {} };
  }
  const { getDatabase } = await import("@/lib/server/database");
  const { createToken, createUser } = await import("@/lib/server/auth/accounts");
  const { getAuth } = await import("@/lib/server/server-context");
  const { agentApiRoutes, serveRoutes } = await import("@/lib/server/testing/serve-routes");
  const auth = await getAuth();
  const { db } = await getDatabase();
  const tokens: Record<string, string> = {};
  for (const role of ["agent", "approver"] as const) {
    const email = `load-${role}-${crypto.randomUUID().slice(0, 8)}@load.example`;
    await createUser(auth, { email, name: `load ${role}`, password: "load-password-1", role });
    tokens[role] = (await createToken(auth, db, { email, name: `load ${role}` })).token;
  }
  const inbox = await import("@/app/api/inbox/route");
  const decision = await import("@/app/api/runs/[id]/decision/route");
  const server = await serveRoutes([
    ...(await agentApiRoutes()),
    { method: "GET", path: "/api/inbox", handler: inbox.GET },
    { method: "POST", path: "/api/runs/:id/decision", handler: decision.POST },
  ]);
  return {
    urls: [server.url],
    agentToken: tokens.agent ?? "",
    approverToken: tokens.approver ?? "",
    close: server.close,
  };
}

/** The database's counters (pg_stat_database, pg_stat_wal) and its connections and lock waits now. */
async function databaseFigures(sql: postgres.Sql) {
  const [database] = await sql`
    select xact_commit::bigint as commits, numbackends as connections
    from pg_stat_database where datname = current_database()`;
  const [wal] = await sql`select wal_bytes::bigint as bytes from pg_stat_wal`;
  const [locks] = await sql`select count(*)::int as waiting from pg_locks where not granted`;
  return {
    commits: Number(database?.commits ?? 0),
    connections: Number(database?.connections ?? 0),
    walBytes: Number(wal?.bytes ?? 0),
    locksWaiting: Number(locks?.waiting ?? 0),
  };
}

function agentSamples(result: LoadResult): number[] {
  return (
    [...result.latencies]
      // Opening a run and reporting outcomes: the agent API's requests that never wait by design (a turn,
      // a finish and `/next` are held until the server has something to say, a person's decision too).
      .filter(([kind]) => kind === "POST /api/agent/runs" || kind.endsWith("/reports"))
      .flatMap(([, samples]) => samples)
  );
}

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write("load: set DATABASE_URL to the Postgres database the instances use\n");
    process.exit(2);
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const target = await instances();
  const rows: string[][] = [];
  let knee: string | null = null;
  try {
    for (let agents = 2; agents <= MAX_AGENTS; agents *= 2) {
      const before = await databaseFigures(sql);
      const started = performance.now();
      const result = await driveLoad({
        urls: target.urls,
        agentToken: target.agentToken,
        approverHeaders: { authorization: `Bearer ${target.approverToken}` },
        agents,
        runsPerAgent: 3,
        width: WIDTH,
        approvers: Math.max(1, agents / 4),
        thinkMs: THINK_MS,
      });
      const seconds = (performance.now() - started) / 1000;
      const after = await databaseFigures(sql);
      const problems = checkAgainstScripts(result, { width: WIDTH });
      const calls = [...result.executions.values()].reduce((sum, times) => sum + times, 0);
      const agent = summarize(agentSamples(result));
      const decisions = summarize(result.latencies.get("POST /api/runs/{id}/decision") ?? []);
      const inbox = summarize(result.latencies.get("GET /api/inbox") ?? []);
      const within = agent.p99 <= P99_MS && problems.length === 0;
      rows.push([
        String(agents),
        (calls / seconds).toFixed(1),
        (result.decisions / seconds).toFixed(1),
        `${agent.median.toFixed(1)} / ${agent.p99.toFixed(1)}`,
        `${decisions.median.toFixed(1)} / ${decisions.p99.toFixed(1)}`,
        `${inbox.median.toFixed(1)} / ${inbox.p99.toFixed(1)}`,
        ((after.commits - before.commits) / seconds).toFixed(0),
        ((after.walBytes - before.walBytes) / seconds / 1024).toFixed(0),
        String(after.connections),
        String(after.locksWaiting),
        problems.length === 0 ? (within ? "ok" : "p99 over") : `${problems.length} wrong`,
      ]);
      if (problems.length > 0) process.stderr.write(`${problems.slice(0, 5).join("\n")}\n`);
      if (!within) break;
      knee = `${agents} agents: ${(calls / seconds).toFixed(1)} tool calls/s, ${(result.decisions / seconds).toFixed(1)} decisions/s`;
    }
  } finally {
    await target.close();
    await sql.end({ timeout: 5 });
  }
  const header = [
    "agents",
    "calls/s",
    "decisions/s",
    "open + reports p50/p99 ms",
    "decision p50/p99 ms",
    "inbox p50/p99 ms",
    "commits/s",
    "WAL KiB/s",
    "connections",
    "locks waiting",
    "",
  ];
  process.stdout.write(`\n| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|\n`);
  for (const row of rows) process.stdout.write(`| ${row.join(" | ")} |\n`);
  process.stdout.write(
    `\nobjective: open + reports p99 ≤ ${P99_MS} ms; knee: ${knee ?? "none (the first step broke it)"}\n`,
  );
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`load: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
