import { beforeAll, describe, expect, it, vi } from "vitest";
import { decodeRunEvent } from "@/lib/runtime";
import { slowReadTool } from "@/lib/runtime/testing/scenario-fixtures";
import { getDatabase } from "@/lib/server/database";
import { createRunService, type RunService } from "@/lib/server/runs/run-service";
import { processMcp } from "@/lib/server/server-context";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { routeParams, setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import {
  openSseReader as openReader,
  type ReadSseMessage as SseMessage,
} from "@/lib/server/testing/sse-reader";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import { applyInboxChanges, type InboxChanges } from "@/lib/wire/inbox-changes";
import type { InboxPage } from "@/lib/wire/inbox-item";

// The routes use the process-wide database: hand them a fresh test database.
let viewer: TestAccount;
let service: RunService;
let events: typeof import("./route");
let inbox: typeof import("../../../inbox/events/route");

const setup = setUpRouteTests(["viewer"]);

beforeAll(async () => {
  ({ viewer } = setup.accounts);
  events = await import("./route");
  inbox = await import("../../../inbox/events/route");
  service = await setup.runService();
});

const params = routeParams;
const streamRequest = (
  runId: string,
  init: { after?: string; lastEventId?: string; signal?: AbortSignal } = {},
) =>
  new Request(
    `http://test/api/runs/${runId}/events${init.after === undefined ? "" : `?after=${init.after}`}`,
    {
      headers: {
        ...viewer.headers,
        ...(init.lastEventId === undefined ? {} : { "last-event-id": init.lastEventId }),
      },
      signal: init.signal,
    },
  );
const records = (messages: SseMessage[]) =>
  messages
    .filter((message) => message.event === "message")
    // The stream's wire format is the decoder's input: decoding is the test that it is well formed.
    .map((message) => decodeRunEvent("stream", JSON.parse(message.data)));

const gatedWrite = buildScenario(gatedWriteScenario("gated write for the stream"));

async function startWaitingRun() {
  const { runId, settled } = await service.startRun(gatedWrite);
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  const view = await service.loadView(runId);
  return { runId, turnDigest: view?.pending?.turnDigest ?? "" };
}

describe("GET /api/runs/[id]/events", () => {
  it("sends SSE headers, replays every stored event with id = seq, then goes live until the run ends", async () => {
    const { runId, turnDigest } = await startWaitingRun();
    const response = await events.GET(streamRequest(runId), params(runId));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");

    const stream = openReader(response);
    const replayed = records(await stream.until((message) => message.data.includes('"awaiting_approval"')));
    expect(replayed.map((event) => event.seq)).toEqual(replayed.map((_, index) => index + 1));
    const wait = replayed.at(-1);
    expect(wait?.payload).toMatchObject({
      turnDigest,
      calls: [{ name: "write_file" }, { name: "read_file" }],
    });

    await service.decide(runId, { approve: true, turnDigest, actor: "alice" });
    const rest = await stream.until((message) => message.event === "end");
    const live = records(rest);
    expect(live[0]?.seq).toBe((wait?.seq ?? 0) + 1);
    expect(live.map((event) => event.seq)).toEqual(live.map((_, index) => (wait?.seq ?? 0) + 1 + index));
    expect(live.map((event) => event.type)).toContain("approval_decided");
    expect(live.at(-1)?.type).toBe("run_finished");
    expect(rest.at(-1)).toMatchObject({ event: "end" });
    expect(rest.filter((message) => message.id !== undefined).map((message) => Number(message.id))).toEqual(
      live.map((event) => event.seq),
    );
    expect(await stream.next()).toBeNull();
  });

  it("resumes after Last-Event-ID (over ?after=) without repeating or skipping", async () => {
    const { runId } = await startWaitingRun();
    const all = await service.readEvents(runId, 0);
    const fromHeader = openReader(
      await events.GET(streamRequest(runId, { lastEventId: "1", after: "0" }), params(runId)),
    );
    const resumed = records(
      await fromHeader.until((message) => message.data.includes('"awaiting_approval"')),
    );
    expect(resumed.map((event) => event.seq)).toEqual(all.slice(1).map((event) => event.seq));
    await fromHeader.cancel();

    const fromQuery = openReader(await events.GET(streamRequest(runId, { after: "2" }), params(runId)));
    expect(records([(await fromQuery.next()) as SseMessage])[0]?.seq).toBe(3);
    await fromQuery.cancel();
  });

  it("ends at once when the client resumes after the run already finished", async () => {
    const { runId, turnDigest } = await startWaitingRun();
    await service.decide(runId, { approve: true, turnDigest, actor: "alice" });
    const last = (await service.readEvents(runId, 0)).at(-1)?.seq ?? 0;
    const stream = openReader(
      await events.GET(streamRequest(runId, { lastEventId: String(last) }), params(runId)),
    );
    expect(await stream.next()).toMatchObject({ event: "end" });
    expect(await stream.next()).toBeNull();
  });

  it("reads the run once to end a stream resumed after the end: the route's read says it finished", async () => {
    const { runId, turnDigest } = await startWaitingRun();
    await service.decide(runId, { approve: true, turnDigest, actor: "alice" });
    const last = (await service.readEvents(runId, 0)).at(-1)?.seq ?? 0;
    const getRun = vi.spyOn(service, "getRun");
    try {
      const stream = openReader(
        await events.GET(streamRequest(runId, { lastEventId: String(last) }), params(runId)),
      );
      expect(await stream.next()).toMatchObject({ event: "end" });
      expect(getRun.mock.calls.filter(([id]) => id === runId)).toHaveLength(1);
    } finally {
      getRun.mockRestore();
    }
  });

  it("refuses a resume point that is not a whole number, and an unknown run, with the error table's bodies", async () => {
    const { runId } = await startWaitingRun();
    const bad = await events.GET(streamRequest(runId, { lastEventId: "seven" }), params(runId));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "invalid_request", message: /Last-Event-ID/ } });
    expect((await events.GET(streamRequest(runId, { after: "-1" }), params(runId))).status).toBe(400);

    const unknown = "00000000-0000-4000-8000-000000000000";
    const missing = await events.GET(streamRequest(unknown), params(unknown));
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("not_found");
  });

  it("stops streaming when the client goes away", async () => {
    const { runId, turnDigest } = await startWaitingRun();
    const abort = new AbortController();
    const stream = openReader(
      await events.GET(streamRequest(runId, { signal: abort.signal }), params(runId)),
    );
    await stream.until((message) => message.data.includes('"awaiting_approval"'));
    abort.abort();
    await service.decide(runId, { approve: true, turnDigest, actor: "alice" });
    // The stream ends without delivering what happened after the client left.
    expect(await stream.next()).toBeNull();
  });
});

describe("GET /api/runs/[id]/events opening", () => {
  it("reads the run once: its first worker check uses the run the route read to answer 404", async () => {
    const { runId } = await startWaitingRun();
    const getRun = vi.spyOn(service, "getRun");
    try {
      const abort = new AbortController();
      const stream = openReader(
        await events.GET(streamRequest(runId, { signal: abort.signal }), params(runId)),
      );
      // The replay is sent after the stream has started following and watching the run's worker.
      await stream.until((message) => message.data.includes('"awaiting_approval"'));
      expect(getRun.mock.calls.filter(([id]) => id === runId)).toHaveLength(1);
      abort.abort();
    } finally {
      getRun.mockRestore();
    }
  });
});

describe("GET /api/runs/[id]/events while the run's worker is gone", () => {
  it("says so (event: worker, lost: true) once the run's lease has run out", async () => {
    // An instance whose lease renewals stall, as when its process hangs or dies mid-wave. The lease
    // outlasts opening the stream even on a loaded machine, so the stream sees it held first.
    const stalled = createRunService(await getDatabase(), {
      execution: { leaseMs: 1_000, instanceId: "stalled" },
      modelEndpoints: { endpoints: new Map(), problem: null },
      mcp: processMcp(),
      wrapStore: (store) => ({ ...store, renewLease: () => new Promise<boolean>(() => {}) }),
    });
    const { runId } = await stalled.startRun(
      buildScenario({
        name: "slow wave",
        tools: [slowReadTool(3_000)],
        model: { kind: "scripted", turns: [{ calls: [{ name: "slow_scan", arguments: {} }] }] },
      }),
    );
    const abort = new AbortController();
    const stream = openReader(
      await events.GET(streamRequest(runId, { signal: abort.signal }), params(runId)),
    );
    const seen = await stream.until((message) => message.event === "worker" && message.data.includes("true"));
    const worker = seen
      .filter((message) => message.event === "worker")
      .map((message) => JSON.parse(message.data));
    expect(worker.at(-1)).toEqual({ lost: true });
    expect(worker[0]).toEqual({ lost: false });
    abort.abort();
  });
});

describe("GET /api/inbox/events", () => {
  it("sends the first page on connect, then only what changed when a run starts or stops waiting", async () => {
    const abort = new AbortController();
    const stream = openReader(
      await inbox.GET(
        new Request("http://test/api/inbox/events", { signal: abort.signal, headers: viewer.headers }),
      ),
    );
    const first = await stream.next();
    expect(first?.event).toBe("inbox");
    let page = JSON.parse(first?.data ?? "{}") as InboxPage;
    const before = page.items.length;

    const { runId, turnDigest } = await startWaitingRun();
    const added = (await stream.until((message) => message.data.includes(runId))).at(-1);
    expect(added?.event).toBe("inbox-changes");
    const addition = JSON.parse(added?.data ?? "{}") as InboxChanges;
    // Only the new row travels, with the page's new order and total.
    expect(addition.upserted.map((item) => item.runId)).toEqual([runId]);
    page = applyInboxChanges(page, addition);
    expect(page.items[0]).toMatchObject({ runId, pending: { turnDigest } });
    expect(page.items).toHaveLength(before + 1);
    expect(page.total).toBe(before + 1);

    await service.decide(runId, { approve: false, turnDigest, actor: "alice", reason: "no" });
    const removal = (await stream.until((message) => message.data.includes(`"removed":["${runId}"]`))).at(-1);
    page = applyInboxChanges(page, JSON.parse(removal?.data ?? "{}") as InboxChanges);
    expect(page.items).toHaveLength(before);
    expect(page.items.some((item) => item.runId === runId)).toBe(false);
    abort.abort();
  });
});
