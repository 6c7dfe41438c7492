import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getDatabase } from "@/lib/server/database";
import type { RunService } from "@/lib/server/runs/run-service";
import { countOpenStreams } from "@/lib/server/streams/open-streams";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { appendLongHistory } from "@/lib/server/testing/long-history";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import { openSseReader } from "@/lib/server/testing/sse-reader";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

/**
 * The flood of issue 30, against one instance (the route handlers in this
 * process, on its own database): 200 streams of a run with a 12 MB history
 * that nobody reads. What the server holds for them is what this process's
 * resident memory grows by; while they open and sit, and while 10 other
 * streams read the whole history at once, /api/health keeps answering. The bounds (docs/streams.md) are generous for a loaded 2-core
 * machine; without the buffer cap and paged replay each stream queues the
 * whole history (2.4 GB for 200), which the memory bound stops after a few.
 */
const STREAMS = 200;
/** Streams that do read the whole history, all at once, while the unread ones sit. */
const READERS = 10;
const HISTORY_EVENTS = 1_500;
const EVENT_BYTES = 8 * 1024;
/** Resident memory the 200 unread streams may add (about 0.5 MB each, ten times what they hold). */
const MAX_GROWTH_BYTES = 120 * 1024 * 1024;
/** The slowest /api/health answer allowed while the flood lasts. */
const MAX_HEALTH_MS = 5_000;

// Collecting garbage before each reading, so the growth measured is what is held, not what is litter.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;
function residentBytes(): number {
  collectGarbage();
  return process.memoryUsage().rss;
}

/**
 * Reads a stream until the message with id `lastSeq`, cheaply: each chunk the
 * server queues is one message, so only its start is decoded (the readers'
 * own work shares this process with the server's).
 */
async function readThrough(response: Response, lastSeq: number): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  const last = `id: ${lastSeq}\n`;
  const decoder = new TextDecoder();
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`the stream ended before ${last}`);
    if (decoder.decode(chunk.value.subarray(0, last.length)) === last) break;
  }
  await reader.cancel();
}

let viewer: TestAccount;
let service: RunService;
let events: typeof import("./route");
let health: typeof import("../../../health/route");

const setup = setUpRouteTests(["viewer"]);

beforeAll(async () => {
  ({ viewer } = setup.accounts);
  events = await import("./route");
  health = await import("../../../health/route");
  service = await setup.runService();
});
afterAll(async () => {
  vi.unstubAllEnvs();
});

describe("a flood of unread streams of a run with a 12 MB history", () => {
  it("holds resident memory and /api/health latency within their bounds", { timeout: 600_000 }, async () => {
    // One person opens them all: the per-person limit is another test's subject.
    vi.stubEnv("PLAYGROUND_STREAMS_PER_IDENTITY", String(STREAMS + READERS + 1));
    const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario("flooded")));
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const lastSeq = await appendLongHistory((await getDatabase()).db, runId, {
      count: HISTORY_EVENTS,
      bytesPerEvent: EVENT_BYTES,
    });
    const request = () => new Request(`http://test/api/runs/${runId}/events`, { headers: viewer.headers });
    const params = { params: Promise.resolve({ id: runId }) };

    // Warm-up: one reader reads the whole history, so code and caches are loaded before the baseline.
    const warm = openSseReader(await events.GET(request(), params));
    await warm.until((message) => Number(message.id) === lastSeq);
    await warm.cancel();

    const reads = vi.spyOn(service, "readEvents");
    /** Until every stream has done what it does without a reader: no read in flight, none started. */
    const settleReads = async () => {
      for (;;) {
        const count = reads.mock.calls.length;
        await Promise.allSettled(reads.mock.results.map((result) => result.value));
        await new Promise((resolve) => setImmediate(resolve));
        if (reads.mock.calls.length === count) return;
      }
    };

    const healthLatencies: number[] = [];
    let isFlooding = true;
    const probing = (async () => {
      while (isFlooding) {
        const started = performance.now();
        const response = await health.GET(new Request("http://test/api/health"));
        healthLatencies.push(performance.now() - started);
        expect(response.status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    const baseline = residentBytes();
    const opened: Response[] = [];
    try {
      for (let batch = 0; batch < STREAMS / 20; batch += 1) {
        for (let index = 0; index < 20; index += 1) {
          const response = await events.GET(request(), params);
          expect(response.status).toBe(200);
          opened.push(response);
        }
        await settleReads();
        const growth = residentBytes() - baseline;
        expect(
          growth,
          `${opened.length} unread streams grew resident memory by ${Math.round(growth / 2 ** 20)} MB`,
        ).toBeLessThan(MAX_GROWTH_BYTES);
      }
      expect(countOpenStreams()).toBeGreaterThanOrEqual(STREAMS);
      const unreadGrowth = residentBytes() - baseline;

      // While they sit, 10 readers each read the whole history at once, and health still answers.
      await Promise.all(
        Array.from({ length: READERS }, async () =>
          readThrough(await events.GET(request(), params), lastSeq),
        ),
      );
      // Resident memory is not measured after the readers: what they passed through leaves the
      // allocator's high-water mark behind, which is not what the unread streams hold.
      console.info(
        `flood: ${opened.length} unread streams, resident memory +${Math.round(unreadGrowth / 2 ** 20)} MB; ` +
          `with ${READERS} readers, health max ${Math.round(Math.max(...healthLatencies))} ms over ${healthLatencies.length} checks`,
      );
    } finally {
      isFlooding = false;
      await probing;
      for (const response of opened) await response.body?.cancel();
    }
    expect(healthLatencies.length).toBeGreaterThan(0);
    expect(Math.max(...healthLatencies)).toBeLessThan(MAX_HEALTH_MS);
  });
});
