// `npm run bench` (DATABASE_URL = a Postgres server): measures the playground's
// hot paths against anchors and LangGraph measured in the same run, prints one
// table, and exits non-zero when a ratio misses its target. Not part of
// `npm test`: timings belong here, not in tests.
import { spawnSync } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { createRunService, type RunService } from "@/lib/server/runs/run-service";
import { processMcp } from "@/lib/server/server-context";
import { openDatabase } from "../db/client";
import { buildScenario } from "../lib/runtime/testing/scenario-harness";
import { agentCallsOverHttp } from "./agent-over-http";
import { anchorCpu } from "./cpu-anchor";
import {
  decisionsOverHttp,
  type Edge,
  getOverHttp,
  openEdge,
  uncachedTokenVerification,
} from "./edge-over-http";
import { bareHttpRoundTrips } from "./http-floor";
import { openLangGraphPeer } from "./langgraph-peer";
import { SHAPES, scenarioOf, toolCallsOf } from "./shapes";
import { printTable, type Row, summarize } from "./table";
import { waitingRun, waitingRuns } from "./waiting-runs";

const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 5);
/**
 * Decisions timed over HTTP per identity: as many as the in-process figure times, so both p99s are
 * the third slowest sample (of 100 it was the second slowest, and moved by milliseconds run to run).
 */
const HTTP_DECISIONS = Number(process.env.BENCH_HTTP_DECISIONS ?? 300);

async function main() {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    process.stderr.write(
      "bench: set DATABASE_URL to a Postgres server (it creates and drops a database of its own)\n",
    );
    process.exit(2);
  }
  // Timings move with what else the machine runs: the table says how busy it was.
  const [loadAtStart = 0] = loadavg();
  const name = `tp_bench_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let statements = 0;
  const handle = await openDatabase({ url: url.toString(), onQuery: () => (statements += 1) });
  const service = createRunService(handle, {
    modelEndpoints: { endpoints: new Map(), problem: null },
    mcp: processMcp(),
    execution: { leaseMs: 30_000, instanceId: "bench" },
    log: () => {},
  });
  const peer = await openLangGraphPeer(url.toString());
  const rows: Row[] = [];
  let edge: Edge | null = null;
  let servedBy = "";
  try {
    const insertAnchor = await anchorInsert(handle.db);
    const claimAnchor = await anchorClaim(service, handle.db);
    rows.push(
      { figure: "anchor: 100 turn digests and event round trips, CPU only (ms)", samples: anchorCpu() },
      { figure: "anchor: raw event INSERT commit (ms)", samples: insertAnchor },
      { figure: "anchor: bare claim UPDATE (ms)", samples: claimAnchor },
    );

    for (const shape of SHAPES) {
      settleGarbage();
      const calls = toolCallsOf(shape);
      const ours: number[] = [];
      const perCallStatements: number[] = [];
      const theirs: number[] = [];
      for (let repetition = 0; repetition < REPETITIONS; repetition += 1) {
        const before = statements;
        const started = performance.now();
        const run = await service.startRun(buildScenario(scenarioOf(shape)));
        const status = await run.settled;
        if (status !== "COMPLETED") throw new Error(`${shape.name}: the run ended ${status}`);
        ours.push((performance.now() - started) / calls);
        perCallStatements.push((statements - before) / calls);
        theirs.push((await peer.run(shape)) / calls);
      }
      rows.push(
        {
          figure: `${shape.name}: statements per tool call`,
          samples: perCallStatements,
          target: shape.batches[0] === 8 ? { max: 6 } : undefined,
        },
        { figure: `${shape.name}: ms per tool call, LangGraph`, samples: theirs },
        {
          figure: `${shape.name}: ms per tool call, ours`,
          samples: ours,
          anchor: { name: "× LangGraph", value: summarize(theirs).median },
          target: { maxRatio: 1.5 },
        },
      );
    }

    // Beside the in-process figures: the same reads executed by an agent elsewhere, over loopback HTTP.
    const inProcess = rows.find((row) => row.figure.endsWith("ms per tool call, ours"));
    rows.push({
      figure: "agent over HTTP, a turn of 8 reads: ms per tool call",
      samples: await agentCallsOverHttp(service, 8, REPETITIONS),
      ...(inProcess ? { anchor: { name: "× in-process", value: summarize(inProcess.samples).median } } : {}),
    });

    const decisions = await decisionLatency(service);
    rows.push({
      figure: "decision → barrier call_started (ms)",
      samples: decisions,
      anchor: { name: "× bare claim", value: summarize(claimAnchor).median },
      target: { maxP99: 10 },
    });

    // The same over HTTP, with an API token and with a signed-in session (bench/edge-over-http.ts).
    edge = await openEdge(url.toString());
    servedBy = edge.servedBy;
    const health = await getOverHttp(edge, "/api/health", {});
    const healthMedian = summarize(health).median;
    const uncached = await uncachedTokenVerification(url.toString(), edge.token);
    rows.push(
      // What any round trip between two processes costs here: the floor under the HTTP figures.
      { figure: "anchor: bare HTTP round trip to another process (ms)", samples: await bareHttpRoundTrips() },
      { figure: "HTTP: GET /api/health, no identity (ms)", samples: health },
      {
        figure: "HTTP: GET /api/inbox (few waiting), API token (ms)",
        samples: await getOverHttp(edge, "/api/inbox?limit=1", edge.token),
        anchor: { name: "× health", value: healthMedian },
      },
      {
        figure: "HTTP: GET /api/inbox (few waiting), session (ms)",
        samples: await getOverHttp(edge, "/api/inbox?limit=1", edge.session),
        anchor: { name: "× health", value: healthMedian },
      },
      {
        figure: "a token verified without the cache (ms)",
        samples: uncached.samples,
        anchor: { name: "× bare claim", value: summarize(claimAnchor).median },
      },
      { figure: "same: statements per request", samples: [uncached.statementsPerRequest] },
      { figure: "same: writes per request", samples: [uncached.writesPerRequest] },
    );
    const decisionMedian = summarize(decisions).median;
    for (const [how, headers] of [
      ["API token", edge.token],
      ["session", edge.session],
    ] as const) {
      const waiting = await waitingRuns(edge.service, HTTP_DECISIONS + 5);
      settleGarbage();
      const { toCallStarted, afterAnswer } = await decisionsOverHttp(edge, waiting, headers);
      rows.push(
        {
          figure: `HTTP, ${how}: decision → call_started on the run's stream (ms)`,
          samples: toCallStarted,
          anchor: { name: "× in-process", value: decisionMedian },
          target: { maxP99: 10 },
        },
        // The write's own events reach the process's streams as it returns: about the client's
        // reading of the two responses, not a read of the database.
        { figure: `HTTP, ${how}: the same, after the decision's answer (ms)`, samples: afterAnswer },
      );
    }

    rows.push({
      figure: "64 concurrent decisions: a loser's 409 (ms)",
      samples: await raceLosers(service),
      target: { maxP99: 50 },
    });
    const inbox = await inboxLatency(service, handle.db);
    rows.push({ figure: "inbox of 10,000 waiting runs (ms)", samples: inbox, target: { maxP99: 20 } });
    if (edge) {
      for (const [how, headers] of [
        ["API token", edge.token],
        ["session", edge.session],
      ] as const) {
        settleGarbage();
        rows.push({
          figure: `HTTP, ${how}: inbox first page at 10,000 waiting (ms)`,
          samples: await getOverHttp(edge, "/api/inbox", headers, 100),
          anchor: { name: "× in-process", value: summarize(inbox).median },
          target: { maxP99: 20 },
        });
      }
    }
    rows.push({
      figure: "CLI run on the embedded database (ms)",
      samples: cliRuns(),
      target: { maxMedian: 1_200 },
    });
    const fanOut = await sseFanOut(service, url.toString());
    rows.push(
      {
        figure: "SSE, 100 streams on each of 2 instances: commit → last stream (ms)",
        samples: fanOut.latencies,
        target: { maxP99: 50 },
      },
      {
        figure: "SSE, same: statements per event on a following instance",
        samples: [fanOut.statementsPerEvent],
        target: { max: 2 },
      },
    );
  } finally {
    await edge?.close();
    await peer.close();
    await handle.close();
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end({ timeout: 5 });
  }
  const [loadAtEnd = 0] = loadavg();
  const missed = printTable(rows, {
    repetitions: REPETITIONS,
    machine:
      `${availableParallelism()} cores; load average (1 minute) ${loadAtStart.toFixed(2)} as the bench began, ${loadAtEnd.toFixed(2)} as it ended` +
      (servedBy ? `\nHTTP figures: ${servedBy}` : ""),
  });
  process.exit(missed > 0 ? 1 : 0);
}

type Db = Awaited<ReturnType<typeof openDatabase>>["db"];

/**
 * Collects the garbage the bench's own setup left (thousands of runs, the
 * peer's checkpoints) before a timed section, when the bench runs with
 * `--expose-gc`: a pause it caused is not the measured path's. What the
 * measured path allocates itself is still collected while it is timed.
 */
function settleGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function time(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function anchorInsert(db: Db): Promise<number[]> {
  await db.execute(sql`create table bench_anchor (id bigserial primary key, payload jsonb not null)`);
  const samples: number[] = [];
  for (let index = 0; index < 50; index += 1) {
    samples.push(
      await time(() =>
        db.execute(sql`insert into bench_anchor (payload) values (${JSON.stringify({ index })}::jsonb)`),
      ),
    );
  }
  return samples;
}

async function anchorClaim(service: RunService, db: Db): Promise<number[]> {
  const { runId } = await waitingRun(service);
  const samples: number[] = [];
  for (let index = 0; index < 50; index += 1) {
    // Claims nothing: the same statement shape as a claim, on a row that stays waiting.
    samples.push(
      await time(() =>
        db.execute(
          sql`update runs set updated_at = now() where id = ${runId} and status = 'WAITING_FOR_APPROVAL'`,
        ),
      ),
    );
  }
  return samples;
}

/**
 * From asking for a decision to the barrier's `call_started` reaching this
 * instance's streams (its own writes are announced to them as each returns;
 * other instances hear the NOTIFY, which the SSE figures measure). Its seq is known in
 * advance: the run waits at seq N, then run_claimed, approval_decided,
 * run_resumed, call_started. The waiting runs are prepared first, so the
 * work (and garbage) of setting them up is not interleaved with the
 * decisions; each decided run finishes before the next decision (its end is
 * awaited, not polled: a poll's queries would be the bench's own load). The
 * first ten are a warm-up (the path's first runs compile it) and are not
 * counted; 300 are, so the p99 is the third slowest, not the slowest.
 */
async function decisionLatency(service: RunService): Promise<number[]> {
  const waiting: Array<{ runId: string; turnDigest: string; waitingAt: number }> = [];
  for (let index = 0; index < 310; index += 1) {
    const run = await waitingRun(service);
    waiting.push({ ...run, waitingAt: (await service.readEvents(run.runId, 0)).at(-1)?.seq ?? 0 });
  }
  const samples: number[] = [];
  settleGarbage();
  for (const { runId, turnDigest, waitingAt } of waiting) {
    let heardAt: (at: number) => void = () => {};
    const heard = new Promise<number>((resolve) => {
      heardAt = resolve;
    });
    const unsubscribe = await service.subscribeToEvents(runId, (_, seq) => {
      if (seq >= waitingAt + 4) heardAt(performance.now());
    });
    const started = performance.now();
    const decided = service.decide(runId, { approve: true, turnDigest, actor: "bench" });
    samples.push((await heard) - started);
    unsubscribe();
    await decided;
  }
  return samples.slice(10);
}

async function raceLosers(service: RunService): Promise<number[]> {
  const samples: number[] = [];
  settleGarbage();
  for (let round = 0; round < 5; round += 1) {
    const { runId, turnDigest } = await waitingRun(service);
    await Promise.all(
      Array.from({ length: 64 }, async (_, index) => {
        const started = performance.now();
        try {
          await service.startDecision(runId, { approve: true, turnDigest, actor: `racer-${index}` });
        } catch {
          samples.push(performance.now() - started);
        }
      }),
    );
  }
  return samples;
}

async function inboxLatency(service: RunService, db: Db): Promise<number[]> {
  const { runId } = await waitingRun(service);
  // 10,000 copies of a real waiting run, straight into the table: the inbox reads only runs.
  await db.execute(sql`
    insert into runs (id, name, status, scenario, limits, state, waiting_since)
    select gen_random_uuid(), name || ' ' || n, status, scenario, limits, state, now() - (n || ' seconds')::interval
    from runs, generate_series(1, 9999) as n where id = ${runId}`);
  // What autovacuum does to a table after that many inserts, which the bench does not wait a minute
  // for: without a visibility map, counting the waiting runs visits every one of their heap rows.
  await db.execute(sql`vacuum analyze runs`);
  const samples: number[] = [];
  settleGarbage();
  // 100 pages, so the p99 is not simply the slowest of a handful.
  for (let index = 0; index < 100; index += 1) samples.push(await time(() => service.listInbox()));
  return samples;
}

/**
 * 100 open streams of one run on each of two other instances (their own
 * connections and LISTEN) while a third runs it: for each event, from its
 * commit (the database's timestamp, taken before commit, so this
 * over-estimates) to the last of the 200 streams sending it; and how many
 * statements each following instance sent per event.
 */
async function sseFanOut(
  writer: RunService,
  url: string,
): Promise<{ latencies: number[]; statementsPerEvent: number }> {
  const { pipeRunEvents } = await import("@/lib/server/streams/client-event-stream");
  const instances = await Promise.all(
    [0, 1].map(async () => {
      const counter = { statements: 0 };
      const handle = await openDatabase({ url, onQuery: () => (counter.statements += 1) });
      const service = createRunService(handle, {
        modelEndpoints: { endpoints: new Map(), problem: null },
        mcp: processMcp(),
        execution: { leaseMs: 30_000, instanceId: "follower" },
        log: () => {},
      });
      return { handle, service, counter };
    }),
  );
  const shape = SHAPES[2];
  if (!shape) throw new Error("no shape");
  const base = scenarioOf(shape);
  // The run waits a second for its streams to open: its first model turn is slow.
  const scenario = buildScenario({
    ...base,
    model: {
      ...base.model,
      turns: base.model.turns.map((turn, index) => (index === 0 ? { ...turn, delayMs: 1_000 } : turn)),
    },
  });
  const { runId, settled } = await writer.startRun(scenario);
  const lastSentAt = new Map<number, number>();
  const closers: Array<() => void> = [];
  for (const { service } of instances) {
    for (let stream = 0; stream < 100; stream += 1) {
      let isClosed = false;
      const channel = {
        send(message: { id?: string }) {
          if (message.id) lastSentAt.set(Number(message.id), Date.now());
        },
        sendAll(messages: ReadonlyArray<{ id?: string }>) {
          for (const message of messages) this.send(message);
        },
        whenReady: () => Promise.resolve(),
        close() {
          isClosed = true;
        },
        get isClosed() {
          return isClosed;
        },
      };
      closers.push(await pipeRunEvents(service, runId, 0, channel));
    }
  }
  const before = instances.map(({ counter }) => counter.statements);
  if ((await settled) !== "COMPLETED") throw new Error("the followed run did not complete");
  await new Promise((resolve) => setTimeout(resolve, 500));
  const events = await writer.readEvents(runId, 0);
  const latencies = events
    .filter((event) => event.seq > 2)
    .map((event) => (lastSentAt.get(event.seq) ?? Number.NaN) - Date.parse(event.at));
  const statements = instances.map(({ counter }, index) => counter.statements - (before[index] ?? 0));
  for (const close of closers) close();
  await Promise.all(instances.map(({ handle }) => handle.close()));
  return { latencies, statementsPerEvent: Math.max(...statements) / events.length };
}

function cliRuns(): number[] {
  const samples: number[] = [];
  const environment: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  delete environment.DATABASE_URL;
  for (let index = 0; index < 3; index += 1) {
    const started = performance.now();
    const result = spawnSync(
      "npm",
      [
        "run",
        "--silent",
        "playground",
        "--",
        "run",
        path.join("lib", "scenarios", "write-then-read-back.json"),
      ],
      {
        encoding: "utf8",
        env: environment,
      },
    );
    if (result.status !== 0) throw new Error(`the CLI failed: ${result.stderr}`);
    samples.push(performance.now() - started);
  }
  return samples;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
