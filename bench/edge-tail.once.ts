// Where a slow decision's time goes (docs/performance.md#where-a-slow-decisions-time-goes):
// decision → `call_started` over HTTP timed as `npm run bench` times it (the route handlers on Node's
// HTTP server, in this process), and for each decision what overlapped it: the collector's pauses
// (`gc` performance entries), the time this process's main thread and the database's backends were
// runnable but waiting for a CPU, and the time the main thread ran (Linux's /proc/…/schedstat).
// Linux only; DATABASE_URL = a Postgres database on this machine, which gains a user, a token and runs.
import { readFileSync } from "node:fs";
import { PerformanceObserver } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { getDatabase } from "@/lib/server/database";
import { anchorCpu } from "./cpu-anchor";
import { decisionsOverHttp, openEdge } from "./edge-over-http";
import { summaryLine } from "./table";
import { waitingRuns } from "./waiting-runs";

const url = process.env.DATABASE_URL;
if (!url?.startsWith("postgres")) throw new Error("set DATABASE_URL to a Postgres database on this machine");
const decisions = Number(process.env.BENCH_HTTP_DECISIONS ?? 200);
const TARGET_MS = 10;

const edge = await openEdge(url);
const waiting = await waitingRuns(edge.service, decisions + 5);
const { db } = await getDatabase();
const backends = (await db.execute<{ pid: number }>(
  sql`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
)) as unknown as Array<{ pid: number }>;

/** [ns on a CPU, ns runnable but waiting for one] of a thread or process, from its schedstat. */
function schedstat(path: string): [number, number] {
  try {
    const [running = 0, waitingForCpu = 0] = readFileSync(path, "utf8").trim().split(" ").map(Number);
    return [running, waitingForCpu];
  } catch {
    return [0, 0]; // a backend that has gone since
  }
}
const readScheduler = () => {
  const [mainRunning, mainWaiting] = schedstat(`/proc/self/task/${process.pid}/schedstat`);
  const databaseWaiting = backends.reduce((sum, { pid }) => sum + schedstat(`/proc/${pid}/schedstat`)[1], 0);
  return { at: performance.now(), mainRunning, mainWaiting, databaseWaiting };
};

const pauses: Array<{ from: number; to: number }> = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    pauses.push({ from: entry.startTime, to: entry.startTime + entry.duration });
}).observe({ entryTypes: ["gc"] });

// Each timed decision's scheduler readings as it started and as its call_started arrived.
const moments: Array<Partial<Record<"started" | "heard", ReturnType<typeof readScheduler>>>> = [];
(globalThis as { gc?: () => void }).gc?.(); // as `npm run bench` does
const { toCallStarted } = await decisionsOverHttp(edge, waiting, edge.token, (moment, index) => {
  moments[index] = { ...moments[index], [moment]: readScheduler() };
});
await new Promise((resolve) => setImmediate(resolve)); // the last pauses' entries

const ms = (ns: number) => ns / 1e6;
const timed = toCallStarted.map((total, index) => {
  const { started, heard } = moments[index] ?? {};
  if (!started || !heard) throw new Error("a decision's moments are missing");
  const paused = pauses.reduce(
    (sum, { from, to }) => sum + Math.max(0, Math.min(to, heard.at) - Math.max(from, started.at)),
    0,
  );
  const mainWaiting = ms(heard.mainWaiting - started.mainWaiting);
  const databaseWaiting = ms(heard.databaseWaiting - started.databaseWaiting);
  return {
    total,
    paused,
    mainWaiting,
    databaseWaiting,
    mainRunning: ms(heard.mainRunning - started.mainRunning),
  };
});

const line = (figure: string, samples: number[]) => process.stdout.write(summaryLine(figure, samples));
process.stdout.write(`${timed.length} decisions, ${backends.length} database backends watched\n`);
line("the CPU anchor (docs/performance.md#the-cpu-anchor)", anchorCpu());
line(
  "decision → call_started over HTTP",
  timed.map((decision) => decision.total),
);
line(
  "  the main thread on a CPU",
  timed.map((decision) => decision.mainRunning),
);
line(
  "  without the collector's pauses",
  timed.map((decision) => decision.total - decision.paused),
);
line(
  "  without those and the waits for a CPU",
  timed.map((decision) => decision.total - decision.paused - decision.mainWaiting - decision.databaseWaiting),
);
const slow = timed.filter((decision) => decision.total > TARGET_MS);
const mean = (pick: (decision: (typeof timed)[number]) => number) =>
  (slow.reduce((sum, decision) => sum + pick(decision), 0) / Math.max(1, slow.length)).toFixed(1);
process.stdout.write(
  `the ${slow.length} over ${TARGET_MS} ms, on average: ${mean((d) => d.total)} ms, of which collector pauses ` +
    `${mean((d) => d.paused)}, main thread waiting for a CPU ${mean((d) => d.mainWaiting)}, database backends ` +
    `waiting for a CPU ${mean((d) => d.databaseWaiting)}, main thread running ${mean((d) => d.mainRunning)} ` +
    "(overlapping: a pause runs on the main thread)\n",
);
await edge.close();
process.exit(0);
