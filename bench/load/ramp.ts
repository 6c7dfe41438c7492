// The load generator's ramp (docs/performance.md#the-load-generator): agents 2, 4, 8 … until the p99
// of the agents' requests that never wait (open a run, report outcomes) passes the objective, one row
// per step with the database's own figures from pg_stat_* when there is a Postgres server to ask.
import type postgres from "postgres";
import { summarize } from "../table";
import { checkAgainstScripts, driveLoad, type LoadResult } from "./drive-load";

export interface RampOptions {
  urls: string[];
  agentToken: string;
  approverToken: string;
  /** The database the instances use, for its figures; null on the embedded database (no pg_stat to ask). */
  sql: postgres.Sql | null;
  p99Ms: number;
  maxAgents: number;
  width: number;
  thinkMs: number;
}

export const RAMP_HEADER = [
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

export function rampOptionsFromEnv(): Pick<RampOptions, "p99Ms" | "maxAgents" | "width" | "thinkMs"> {
  return {
    p99Ms: Number(process.env.LOAD_P99_MS ?? 250),
    maxAgents: Number(process.env.LOAD_MAX_AGENTS ?? 64),
    width: Number(process.env.LOAD_WIDTH ?? 8),
    thinkMs: Number(process.env.LOAD_THINK_MS ?? 200),
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

const pair = (figures: { median: number; p99: number }) =>
  `${figures.median.toFixed(1)} / ${figures.p99.toFixed(1)}`;

/** Ramps the traffic until the objective breaks; the rows as printed, and the knee (the last step within it). */
export async function rampLoad(options: RampOptions): Promise<{ rows: string[][]; knee: string | null }> {
  const rows: string[][] = [];
  let knee: string | null = null;
  // Untimed: a fresh instance loads each route's code on its first request.
  const warmUp = await driveLoad({
    urls: options.urls,
    agentToken: options.agentToken,
    approverHeaders: { authorization: `Bearer ${options.approverToken}` },
    agents: options.urls.length,
    runsPerAgent: 2,
    width: options.width,
    approvers: options.urls.length,
    thinkMs: options.thinkMs,
  });
  const warmUpProblems = checkAgainstScripts(warmUp, { width: options.width });
  if (warmUpProblems.length > 0) throw new Error(`the warm-up went wrong:\n${warmUpProblems.join("\n")}`);
  for (let agents = 2; agents <= options.maxAgents; agents *= 2) {
    const before = options.sql ? await databaseFigures(options.sql) : null;
    const started = performance.now();
    const result = await driveLoad({
      urls: options.urls,
      agentToken: options.agentToken,
      approverHeaders: { authorization: `Bearer ${options.approverToken}` },
      agents,
      runsPerAgent: 3,
      width: options.width,
      approvers: Math.max(1, agents / 4),
      thinkMs: options.thinkMs,
    });
    const seconds = (performance.now() - started) / 1000;
    const after = options.sql ? await databaseFigures(options.sql) : null;
    const problems = checkAgainstScripts(result, { width: options.width });
    const calls = [...result.executions.values()].reduce((sum, times) => sum + times, 0);
    const agent = summarize(agentSamples(result));
    const within = agent.p99 <= options.p99Ms && problems.length === 0;
    const perSecond = (counted: number) => (counted / seconds).toFixed(0);
    rows.push([
      String(agents),
      (calls / seconds).toFixed(1),
      (result.decisions / seconds).toFixed(1),
      pair(agent),
      pair(summarize(result.latencies.get("POST /api/runs/{id}/decision") ?? [])),
      pair(summarize(result.latencies.get("GET /api/inbox") ?? [])),
      before && after ? perSecond(after.commits - before.commits) : "–",
      before && after ? ((after.walBytes - before.walBytes) / seconds / 1024).toFixed(0) : "–",
      after ? String(after.connections) : "–",
      after ? String(after.locksWaiting) : "–",
      problems.length === 0 ? (within ? "ok" : "p99 over") : `${problems.length} wrong`,
    ]);
    process.stderr.write(`load: ${agents} agents: ${rows.at(-1)?.join(" | ")}\n`);
    if (problems.length > 0) process.stderr.write(`${problems.slice(0, 5).join("\n")}\n`);
    if (!within) break;
    knee = `${agents} agents: ${(calls / seconds).toFixed(1)} tool calls/s, ${(result.decisions / seconds).toFixed(1)} decisions/s`;
  }
  return { rows, knee };
}

/** The ramp as a Markdown table, with its objective and knee. */
export function formatRamp(ramp: { rows: string[][]; knee: string | null }, p99Ms: number): string {
  const lines = [
    `| ${RAMP_HEADER.join(" | ")} |`,
    `|${RAMP_HEADER.map(() => "---").join("|")}|`,
    ...ramp.rows.map((row) => `| ${row.join(" | ")} |`),
  ];
  return `\n${lines.join("\n")}\n\nobjective: open + reports p99 ≤ ${p99Ms} ms; knee: ${ramp.knee ?? "none (the first step broke it)"}\n`;
}
