// The edge over HTTP (docs/performance.md#the-edge-over-http): the production server (`npm start`)
// of the build in .next on the bench's database, its own process; without a build (or with
// BENCH_EDGE=handlers) the app's own route handlers served on loopback in the bench's process
// (lib/server/testing/serve-routes.ts: Node's HTTP server, no Next router); with EDGE_URL a running
// instance on the same database. Each with an API token and with a signed-in session.

import { createToken, createUser } from "@/lib/server/auth/accounts";
import { createAuth } from "@/lib/server/auth/auth";
import { readIdentity } from "@/lib/server/auth/identity";
import { getDatabase } from "@/lib/server/database";
import { getAuth, getRunService } from "@/lib/server/server-context";
import { type ServedRoute, serveRoutes } from "@/lib/server/testing/serve-routes";
import { openDatabase } from "../db/client";
import type { RunService } from "../lib/server/runs/run-service";
import { openEventStream, request } from "./http-client";
import { productionBuildTime, startProductionInstance, stopProcess } from "./production-instance";

export interface Edge {
  base: string;
  service: RunService;
  /** `Authorization: Bearer` with an approver's API token. */
  token: Record<string, string>;
  /** The same approver's session cookie. */
  session: Record<string, string>;
  /** What answers the requests, said in the bench's table. */
  servedBy: string;
  close(): Promise<void>;
}

async function edgeRoutes(): Promise<ServedRoute[]> {
  const health = await import("@/app/api/health/route");
  const inbox = await import("@/app/api/inbox/route");
  const decision = await import("@/app/api/runs/[id]/decision/route");
  const events = await import("@/app/api/runs/[id]/events/route");
  return [
    { method: "GET", path: "/api/health", handler: health.GET },
    { method: "GET", path: "/api/inbox", handler: inbox.GET },
    { method: "POST", path: "/api/runs/:id/decision", handler: decision.POST },
    { method: "GET", path: "/api/runs/:id/events", handler: events.GET },
  ];
}

/**
 * Serves the app on `url`'s database (the process's from now on): the production build's server, the
 * route handlers, or the instance at EDGE_URL that uses that database; and signs an approver in both ways.
 */
export async function openEdge(url: string): Promise<Edge> {
  process.env.DATABASE_URL = url;
  const auth = await getAuth();
  const { db } = await getDatabase();
  const email = `bench-${crypto.randomUUID().slice(0, 8)}@bench.example`;
  const password = "bench-password-1";
  await createUser(auth, { email, name: "bench approver", password, role: "approver" });
  const { token } = await createToken(auth, db, { email, name: "bench" });
  const signedIn = await auth.api.signInEmail({ body: { email, password }, returnHeaders: true });
  const cookie = (signedIn.headers.get("set-cookie") ?? "")
    .split(/,(?=\s*[\w.-]+=)/)
    .map((part) => part.split(";")[0]?.trim())
    .join("; ");
  const server = await serveEdge(url);
  return {
    ...server,
    service: await getRunService(),
    token: { authorization: `Bearer ${token}` },
    session: { cookie },
  };
}

async function serveEdge(url: string): Promise<Pick<Edge, "base" | "servedBy" | "close">> {
  const running = process.env.EDGE_URL?.replace(/\/+$/, "");
  if (running) return { base: running, servedBy: `the instance at ${running}`, close: async () => {} };
  const built = productionBuildTime();
  if (built && process.env.BENCH_EDGE !== "handlers") {
    const instance = await startProductionInstance({
      DATABASE_URL: url,
      PGLITE_DATA_DIR: "",
      PLAYGROUND_ADMIN_EMAIL: "",
      PLAYGROUND_ADMIN_PASSWORD: "",
    });
    return {
      base: instance.url,
      servedBy: `the production server (npm start) of the build in .next made ${built.toISOString()}`,
      close: () => stopProcess(instance.child),
    };
  }
  const served = await serveRoutes(await edgeRoutes());
  return {
    base: served.url,
    servedBy: built
      ? "the route handlers on Node's HTTP server in the bench's process (BENCH_EDGE=handlers)"
      : "the route handlers on Node's HTTP server in the bench's process (no build in .next: `npm run build` first to measure the production server)",
    close: served.close,
  };
}

async function timeGet(url: string, headers: Record<string, string>, times: number): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < times + 10; index += 1) {
    const started = performance.now();
    const response = await request(url, { headers });
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    if (index >= 10) samples.push(performance.now() - started); // the first ten warm the path
  }
  return samples;
}

/** `GET /api/health` (no identity) and `GET /api/inbox` with each identity, one after the other. */
export async function getOverHttp(edge: Edge, path: string, headers: Record<string, string>, times = 200) {
  return timeGet(`${edge.base}${path}`, headers, times);
}

/**
 * What verifying a token costs without the cache, and what it reads and writes: the uncached
 * path (better-auth's verification and the owner's row) on a connection of its own that counts
 * its statements, `times` times in a row.
 */
export async function uncachedTokenVerification(url: string, headers: Record<string, string>, times = 100) {
  const statements: string[] = [];
  const handle = await openDatabase({ url, onQuery: (query) => statements.push(query) });
  try {
    const auth = createAuth(handle.db, (await (await getAuth()).$context).secret);
    const samples: number[] = [];
    const request = new Headers(headers);
    for (let index = 0; index < times + 10; index += 1) {
      if (index === 10) statements.length = 0;
      const started = performance.now();
      if (!(await readIdentity(request, auth))) throw new Error("the bench token did not verify");
      if (index >= 10) samples.push(performance.now() - started);
    }
    const writes = statements.filter((query) => /^\s*(update|insert|delete)/i.test(query)).length;
    return { samples, statementsPerRequest: statements.length / times, writesPerRequest: writes / times };
  } finally {
    await handle.close();
  }
}

/**
 * From `POST /api/runs/{id}/decision` to the barrier's `call_started` on the run's own stream
 * (`GET /api/runs/{id}/events`, open and live: it has replayed the event the run waits at, as a
 * page's stream has before a person decides), both with `headers`; and how long after the
 * POST's answer the stream carried it (negative: before). Each decided run ends (its stream closes)
 * before the next decision. The first {@link WARM_UP_DECISIONS} are a warm-up. `onMoment` is told as
 * each timed decision starts and as its `call_started` arrives (bench/edge-tail.once.ts reads the
 * scheduler then), with the decision's index among the timed ones.
 */
export const WARM_UP_DECISIONS = 5;

export async function decisionsOverHttp(
  edge: Edge,
  waiting: ReadonlyArray<{ runId: string; turnDigest: string; waitingAt: number }>,
  headers: Record<string, string>,
  onMoment?: (moment: "started" | "heard", timedIndex: number) => void,
): Promise<{ toCallStarted: number[]; afterAnswer: number[] }> {
  const toCallStarted: number[] = [];
  const afterAnswer: number[] = [];
  for (const [index, { runId, turnDigest, waitingAt }] of waiting.entries()) {
    const tell = index >= WARM_UP_DECISIONS ? onMoment : undefined;
    // From the event the run waits at: once the stream has handed it on, it is live (its opening,
    // which overlapped the decision before, is not the decision's time).
    const reader = await openEventStream(
      `${edge.base}/api/runs/${runId}/events?after=${waitingAt - 1}`,
      headers,
    );
    const waitingEvent = await reader.next();
    if (waitingEvent?.id !== String(waitingAt))
      throw new Error("the stream did not replay the waiting event");
    tell?.("started", index - WARM_UP_DECISIONS);
    const started = performance.now();
    let answeredAt = Number.NaN;
    const decided = request(`${edge.base}/api/runs/${runId}/decision`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", origin: edge.base },
      body: JSON.stringify({ approve: true, turnDigest }),
    }).then((answer) => {
      answeredAt = performance.now();
      return answer;
    });
    let heardAt = Number.NaN;
    for (;;) {
      const message = await reader.next();
      if (!message || message.event === "end") break;
      if (Number.isNaN(heardAt) && message.data.includes('"call_started"')) {
        heardAt = performance.now();
        tell?.("heard", index - WARM_UP_DECISIONS);
      }
    }
    const answer = await decided;
    if (answer.status !== 200) throw new Error(`the decision: ${answer.status} ${answer.text}`);
    if (Number.isNaN(heardAt)) throw new Error("the stream ended without call_started");
    toCallStarted.push(heardAt - started);
    afterAnswer.push(heardAt - answeredAt);
  }
  return {
    toCallStarted: toCallStarted.slice(WARM_UP_DECISIONS),
    afterAnswer: afterAnswer.slice(WARM_UP_DECISIONS),
  };
}
