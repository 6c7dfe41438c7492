import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getDatabase } from "@/lib/server/database";
import type { RunService } from "@/lib/server/runs/run-service";
import { countOpenStreams } from "@/lib/server/streams/open-streams";
import { SSE_DROPPED_EVENT } from "@/lib/server/streams/sse-channel";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { appendLongHistory } from "@/lib/server/testing/long-history";
import { routeParams, setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import { openSseReader, type ReadSseMessage } from "@/lib/server/testing/sse-reader";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

// The bounds of docs/streams.md, through the routes: open-stream limits, the buffer cap, paged replay.
let viewer: TestAccount;
let approver: TestAccount;
let service: RunService;
let events: typeof import("./route");
let inbox: typeof import("../../../inbox/events/route");
let readMetrics: typeof import("@/lib/server/metrics/read-metrics").readMetrics;

const setup = setUpRouteTests(["viewer", "approver"]);

beforeAll(async () => {
  ({ viewer, approver } = setup.accounts);
  events = await import("./route");
  inbox = await import("../../../inbox/events/route");
  ({ readMetrics } = await import("@/lib/server/metrics/read-metrics"));
  service = await setup.runService();
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const params = routeParams;
const streamRequest = (
  runId: string,
  account: TestAccount,
  init: { lastEventId?: string; signal?: AbortSignal } = {},
) =>
  new Request(`http://test/api/runs/${runId}/events`, {
    headers: {
      ...account.headers,
      ...(init.lastEventId === undefined ? {} : { "last-event-id": init.lastEventId }),
    },
    signal: init.signal,
  });
const inboxRequest = (account: TestAccount, signal?: AbortSignal) =>
  new Request("http://test/api/inbox/events", { headers: account.headers, signal });
const ids = (messages: ReadSseMessage[]) =>
  messages.filter((message) => message.id !== undefined).map((message) => Number(message.id));

async function startWaitingRun(): Promise<string> {
  const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario("stream bounds")));
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  return runId;
}

async function openStreamsMetric(): Promise<number> {
  const { text } = await readMetrics((await getDatabase()).db);
  return Number(/^playground_sse_streams_open (\d+)$/m.exec(text)?.[1]);
}

describe("open-stream limits", () => {
  it("refuses a person's stream past PLAYGROUND_STREAMS_PER_IDENTITY with 429 too_many_streams and Retry-After, counts what is open, and frees the slot when a stream ends", async () => {
    vi.stubEnv("PLAYGROUND_STREAMS_PER_IDENTITY", "2");
    const runId = await startWaitingRun();
    const before = countOpenStreams();
    const first = new AbortController();
    const opened = [
      await events.GET(streamRequest(runId, viewer, { signal: first.signal }), params(runId)),
      await inbox.GET(inboxRequest(viewer)),
    ];
    expect(opened.map((response) => response.status)).toEqual([200, 200]);
    expect(countOpenStreams()).toBe(before + 2);
    expect(await openStreamsMetric()).toBe(before + 2);

    const refused = await events.GET(streamRequest(runId, viewer), params(runId));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({
      error: {
        code: "too_many_streams",
        message: expect.stringContaining("PLAYGROUND_STREAMS_PER_IDENTITY=2"),
      },
    });
    expect((await inbox.GET(inboxRequest(viewer))).status).toBe(429);
    // Another person is not held back by this one's streams.
    const other = await inbox.GET(inboxRequest(approver));
    expect(other.status).toBe(200);

    first.abort();
    await vi.waitFor(() => expect(countOpenStreams()).toBe(before + 2));
    const again = await events.GET(streamRequest(runId, viewer), params(runId));
    expect(again.status).toBe(200);
    for (const response of [...opened, other, again]) await response.body?.cancel();
    expect(countOpenStreams()).toBe(before);
    expect(await openStreamsMetric()).toBe(before);
  });

  it("refuses anyone's stream once the instance holds PLAYGROUND_STREAMS_PER_INSTANCE", async () => {
    vi.stubEnv("PLAYGROUND_STREAMS_PER_INSTANCE", String(countOpenStreams() + 1));
    const held = await inbox.GET(inboxRequest(viewer));
    expect(held.status).toBe(200);
    const refused = await inbox.GET(inboxRequest(approver));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      error: {
        code: "too_many_streams",
        message: expect.stringContaining("PLAYGROUND_STREAMS_PER_INSTANCE"),
      },
    });
    await held.body?.cancel();
    const next = await inbox.GET(inboxRequest(approver));
    expect(next.status).toBe(200);
    await next.body?.cancel();
  });

  it("releases the slot of a stream that fails to start", async () => {
    vi.stubEnv("PLAYGROUND_STREAMS_PER_IDENTITY", "1");
    const runId = await startWaitingRun();
    const before = countOpenStreams();
    vi.spyOn(service, "followEvents").mockRejectedValueOnce(new Error("the database went away"));
    const failed = await events.GET(streamRequest(runId, viewer), params(runId));
    expect(failed.status).toBe(200);
    // The body ends (the browser reconnects) and the slot is free again.
    expect(await openSseReader(failed).until(() => false)).toEqual([]);
    expect(countOpenStreams()).toBe(before);
    const next = await events.GET(streamRequest(runId, viewer), params(runId));
    expect(next.status).toBe(200);
    await next.body?.cancel();
  });
});

describe("a long history", () => {
  it("is replayed a page at a time: an unread stream has read one page; a reader gets every event once, in order", async () => {
    const runId = await startWaitingRun();
    const lastSeq = await appendLongHistory((await getDatabase()).db, runId, {
      count: 300,
      bytesPerEvent: 4096,
    });
    const reads = vi.spyOn(service, "readEvents");
    const settleReads = async () => {
      for (;;) {
        const count = reads.mock.calls.length;
        await Promise.allSettled(reads.mock.results.map((result) => result.value));
        await new Promise((resolve) => setImmediate(resolve));
        if (reads.mock.calls.length === count) return;
      }
    };

    const unread = await events.GET(streamRequest(runId, viewer), params(runId));
    await vi.waitFor(() => expect(reads).toHaveBeenCalled());
    await settleReads();
    // 1.2 MB of history: the stream stopped at the first page, which fills the buffer to its mark.
    expect(reads.mock.calls.length).toBe(1);
    expect(reads.mock.calls[0]?.[2]).toBeLessThanOrEqual(64);

    const reader = openSseReader(await events.GET(streamRequest(runId, viewer), params(runId)));
    const received = ids(await reader.until((message) => Number(message.id) === lastSeq));
    expect(received).toEqual(Array.from({ length: lastSeq }, (_, index) => index + 1));
    expect(reads.mock.calls.length).toBeGreaterThan(10);
    for (const call of reads.mock.calls) expect(call[2]).toBeGreaterThan(0);
    await reader.cancel();
    await unread.body?.cancel();
  });
});

describe("a slow reader", () => {
  it("is dropped with a final `dropped` event once more than PLAYGROUND_STREAM_BUFFER_BYTES wait unread, and resumes after its last id without a gap", async () => {
    vi.stubEnv("PLAYGROUND_STREAM_BUFFER_BYTES", String(64 * 1024));
    const runId = await startWaitingRun();
    const { db } = await getDatabase();
    const caughtUp = (await service.readEvents(runId, 0)).at(-1)?.seq ?? 0;
    const stream = openSseReader(await events.GET(streamRequest(runId, viewer), params(runId)));
    await stream.until((message) => Number(message.id) === caughtUp);
    const before = countOpenStreams();

    // Live events while the reader reads nothing: 400 KB, far past the cap.
    const lastSeq = await appendLongHistory(db, runId, { count: 100, bytesPerEvent: 4096 });
    await vi.waitFor(() => expect(countOpenStreams()).toBe(before - 1), { timeout: 30_000 });

    const rest = await stream.until(() => false);
    const last = rest.at(-1);
    expect(last?.event).toBe(SSE_DROPPED_EVENT);
    expect(JSON.parse(last?.data ?? "{}")).toMatchObject({ reason: "slow_reader" });
    const delivered = ids(rest);
    expect(delivered).toEqual(delivered.map((_, index) => caughtUp + 1 + index));
    expect(delivered.length).toBeLessThan(100);

    const resumedFrom = delivered.at(-1) ?? caughtUp;
    const resumed = openSseReader(
      await events.GET(streamRequest(runId, viewer, { lastEventId: String(resumedFrom) }), params(runId)),
    );
    const after = ids(await resumed.until((message) => Number(message.id) === lastSeq));
    expect(after).toEqual(
      Array.from({ length: lastSeq - resumedFrom }, (_, index) => resumedFrom + 1 + index),
    );
    await resumed.cancel();
  });
});
