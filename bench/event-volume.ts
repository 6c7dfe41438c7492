// `npm run bench:events` (DATABASE_URL = a Postgres server; BENCH_EVENTS, default 1,000,000):
// a year of events. Generates that many events over a year of monthly partitions (finished runs of
// BENCH_EVENTS_PER_RUN events each, straight into the tables: making them through runs would take
// hours), beside 10,000 waiting runs, then times what people read: a run page's events, a run's
// report, the inbox's first page, the runs list's first page and a /metrics scrape. Slow (minutes
// per million events), so apart from `npm run bench`; docs/performance.md#a-year-of-events has its
// figures.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { readMetrics } from "@/lib/server/metrics/read-metrics";
import { createRunService, type RunService } from "@/lib/server/runs/run-service";
import { processMcp } from "@/lib/server/server-context";
import { type Db, openDatabase } from "../db/client";
import { rowsOf } from "../db/repositories/append-event";
import { countFinishedRuns } from "../db/repositories/run-list-queries";
import { RUN_EVENT_VERSIONS } from "../lib/runtime";
import { buildScenario } from "../lib/runtime/testing/scenario-harness";
import { GATED } from "./shapes";
import { printTable, type Row } from "./table";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const EVENTS_PER_RUN = Number(process.env.BENCH_EVENTS_PER_RUN ?? 50);
const MONTHS = 12;
/** Runs generated per INSERT statement (each run's events in one go). */
const RUNS_PER_STATEMENT = 2_000;
const WAITING = 10_000;
const SAMPLES = 200;

async function main() {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    process.stderr.write(
      "bench:events: set DATABASE_URL to a Postgres server (it creates and drops a database)\n",
    );
    process.exit(2);
  }
  const name = `tp_bench_events_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  // Generating a batch of events takes longer than the app's 15 s limit on one statement.
  process.env.PLAYGROUND_STATEMENT_TIMEOUT_MS ??= "600000";
  const handle = await openDatabase({ url: url.toString() });
  const service = createRunService(handle, {
    modelEndpoints: { endpoints: new Map(), problem: null },
    mcp: processMcp(),
    execution: { leaseMs: 30_000, instanceId: "bench" },
    log: () => {},
  });
  try {
    const started = performance.now();
    const runCount = await generateYear(handle.db);
    const waitingRunId = await seedWaiting(service, handle.db);
    await handle.db.execute(sql`vacuum analyze`);
    // The year was written in minutes, not over a year: without a checkpoint first, the server may
    // flush those gigabytes while the reads are timed (a run page's p99 was 7 ms in one run and 45 in
    // the next at 30 million events), which says what the disk does after a bulk load, not what
    // people read.
    await handle.db.execute(sql`checkpoint`);
    const [size] = rowsOf<{ partitions: number; events: number; bytes: string }>(
      await handle.db.execute(sql`
        select (select count(*)::int from pg_inherits where inhparent = 'run_events'::regclass) as partitions,
               (select count(*)::int from run_events) as events,
               (select pg_size_pretty(sum(pg_total_relation_size(inhrelid))) from pg_inherits
                where inhparent = 'run_events'::regclass) as bytes`),
    );
    process.stderr.write(
      `bench:events: ${size?.events} events in ${size?.partitions} partitions, ${size?.bytes} with their indexes (${runCount} runs, ${WAITING} waiting), made in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );
    const generated = rowsOf<{ id: string }>(
      await handle.db.execute(
        sql`select id from runs where status = 'COMPLETED' order by random() limit ${SAMPLES}`,
      ),
    ).map((row) => row.id);

    const rows: Row[] = [
      {
        figure: `run page: a run's ${EVENTS_PER_RUN} events among ${EVENTS.toLocaleString("en")} (ms)`,
        samples: await sample(generated.map((runId) => () => service.readEvents(runId, 0))),
        target: { maxP99: 20 },
      },
      {
        figure: "run page: a waiting run's report (ms)",
        samples: await sample(Array.from({ length: SAMPLES }, () => () => service.getReport(waitingRunId))),
        target: { maxP99: 20 },
      },
      {
        figure: `inbox first page at ${WAITING.toLocaleString("en")} waiting (ms)`,
        samples: await sample(Array.from({ length: SAMPLES }, () => () => service.listInbox())),
        target: { maxP99: 20 },
      },
      {
        figure: `runs list first page of ${(runCount + WAITING).toLocaleString("en")} (ms)`,
        samples: await sample(
          Array.from(
            { length: SAMPLES },
            () => () => service.listRuns({ limit: 50, after: null, filter: {} }),
          ),
        ),
        // A page and its total: the total is counted up to 10,000 (lib/server/lists/list-runs.ts).
        target: { maxP99: 50 },
      },
      {
        figure: `a /metrics scrape among ${(runCount + WAITING).toLocaleString("en")} runs (ms)`,
        samples: await sample(Array.from({ length: SAMPLES }, () => () => readMetrics(handle.db))),
        // Running and waiting runs at each scrape; the finished ones once a minute (below).
        target: { maxP99: 20 },
      },
      {
        figure: "  of which, once a minute: counting the finished runs (ms)",
        samples: await sample(Array.from({ length: SAMPLES }, () => () => countFinishedRuns(handle.db))),
      },
    ];
    const plan = rowsOf<Record<string, string>>(
      await handle.db.execute(
        sql`explain select * from run_events where run_id = ${generated[0]}::uuid and seq > 0 order by seq`,
      ),
    ).map((row) => String(Object.values(row)[0]));
    process.stderr.write(
      `bench:events: the run page's read scans ${plan.filter((line) => /Index (Only )?Scan/.test(line)).length} partition indexes and ${plan.filter((line) => /Seq Scan/.test(line)).length} tables\n`,
    );
    printTable(rows, { repetitions: SAMPLES });
  } finally {
    await handle.close();
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end({ timeout: 5 });
  }
}

/**
 * Finished runs spread over the last twelve months, each with its events a second apart, written
 * straight to the tables in batches. Returns how many runs.
 */
async function generateYear(db: Db): Promise<number> {
  await db.execute(
    sql`select ensure_run_events_partitions(now() - make_interval(months => ${MONTHS}::int), now())`,
  );
  const runCount = Math.ceil(EVENTS / EVENTS_PER_RUN);
  const yearSeconds = MONTHS * 30 * 86_400;
  for (let first = 0; first < runCount; first += RUNS_PER_STATEMENT) {
    const last = Math.min(runCount, first + RUNS_PER_STATEMENT) - 1;
    await db.execute(sql`
      insert into runs (id, name, status, scenario, limits, last_seq, created_at, finished_at)
      select md5('run ' || n)::uuid, 'generated ' || n, 'COMPLETED', '{}', '{}', ${EVENTS_PER_RUN}::int,
             now() - make_interval(secs => ${yearSeconds}::float8 * (1 - n::float8 / ${runCount}::float8)),
             now() - make_interval(secs => ${yearSeconds}::float8 * (1 - n::float8 / ${runCount}::float8)) + make_interval(secs => ${EVENTS_PER_RUN}::float8)
      from generate_series(${first}::int, ${last}::int) as n`);
    await db.execute(sql`
      insert into run_events (run_id, seq, type, version, payload, created_at)
      select md5('run ' || n)::uuid, s, 'call_progress', ${RUN_EVENT_VERSIONS.call_progress}::int,
             jsonb_build_object('stepIndex', 0, 'batchIndex', 0, 'progress', s, 'total', ${EVENTS_PER_RUN}::int, 'message', 'generated'),
             now() - make_interval(secs => ${yearSeconds}::float8 * (1 - n::float8 / ${runCount}::float8)) + make_interval(secs => s)
      from generate_series(${first}::int, ${last}::int) as n, generate_series(1, ${EVENTS_PER_RUN}::int) as s`);
    process.stderr.write(`bench:events: ${((last + 1) * EVENTS_PER_RUN).toLocaleString("en")} events\r`);
  }
  process.stderr.write("\n");
  return runCount;
}

/** One real waiting run, and copies of it (the inbox reads only runs). Returns the real one. */
async function seedWaiting(service: RunService, db: Db): Promise<string> {
  const { runId, settled } = await service.startRun(buildScenario(GATED));
  if ((await settled) !== "WAITING_FOR_APPROVAL") throw new Error("the gated run did not wait");
  await db.execute(sql`
    insert into runs (id, name, status, scenario, limits, state, waiting_since)
    select gen_random_uuid(), name || ' ' || n, status, scenario, limits, state, now() - (n || ' seconds')::interval
    from runs, generate_series(1, ${WAITING - 1}::int) as n where id = ${runId}`);
  return runId;
}

async function sample(works: Array<() => Promise<unknown>>): Promise<number[]> {
  const samples: number[] = [];
  for (const work of works) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return samples;
}

main().catch((error) => {
  process.stderr.write(
    `bench:events: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
