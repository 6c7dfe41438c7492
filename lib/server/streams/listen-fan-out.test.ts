import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/db/client";
import { appendEvents, readEvents } from "@/db/repositories/append-event";
import { createRunRepository } from "@/db/repositories/run-repository";
import { openTestDatabase, testDriverName } from "@/db/testing/test-database";
import { LostClaimError, type RunEvent, type StoredRunEvent } from "@/lib/runtime";
import { getRunEventHub, type RunEventHub } from "./listen-fan-out";
import { createRunEventFeed } from "./run-event-reader";

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase();
});
afterAll(() => handle?.close());

/** A running run held by "holder", on the file's database or on `on`. */
async function newRun(on: DatabaseHandle = handle): Promise<string> {
  const id = crypto.randomUUID();
  await createRunRepository(on.db).createRun({
    id,
    name: "hub",
    scenario: {},
    limits: { maxParallelToolCalls: 8, maxBatchPayloadBytes: 1000, maxRepairAttempts: 2 },
    claimToken: "holder",
    leaseMs: 60_000,
    startedBy: null,
    files: [],
  });
  return id;
}

const progress: RunEvent = {
  type: "call_progress",
  payload: { stepIndex: 0, batchIndex: 0, progress: 1, total: 2, message: null },
};

const eventually = async (check: () => void) => {
  for (let attempt = 0; ; attempt += 1) {
    try {
      check();
      return;
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
};

describe(`the run event hub on ${testDriverName}`, () => {
  it("tells this process's listeners of its own write as the write returns, and once: its NOTIFY is nothing new", async () => {
    const runId = await newRun();
    const heard: number[] = [];
    const unsubscribe = await getRunEventHub(handle).subscribe(runId, (_, seq) => heard.push(seq));
    const { seqs } = await appendEvents(handle.db, runId, [progress, progress], { fence: "holder" });
    // Already told, without waiting for the database to relay the NOTIFY.
    expect(heard).toEqual([seqs?.[1]]);
    // The NOTIFY arrives and is dropped: the listener is not told twice.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(heard).toEqual([seqs?.[1]]);
    unsubscribe();
  });

  it("tells nobody of a write inside a transaction before it commits, and tells them after", async () => {
    const runId = await newRun();
    const heard: number[] = [];
    const unsubscribe = await getRunEventHub(handle).subscribe(runId, (_, seq) => heard.push(seq));
    // The run's creation (a transaction) is announced by its NOTIFY, which may still be on its way.
    await new Promise((resolve) => setTimeout(resolve, 300));
    heard.length = 0;
    let seq = 0;
    await handle.db.transaction(async (transaction) => {
      seq = (await appendEvents(transaction, runId, [progress], { fence: "holder" })).seqs?.[0] ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toEqual([]);
    });
    await eventually(() => expect(heard).toEqual([seq]));
    unsubscribe();
  });

  it("hands on the events of this process's own write, its NOTIFY heard first or not, exactly as reading them back gives them", async () => {
    const runId = await newRun();
    let handed: readonly StoredRunEvent[] = [];
    const heardOnce: number[] = [];
    const hub = getRunEventHub(handle);
    const unsubscribe = await hub.subscribe(
      runId,
      (_, _seq, committed) => {
        if (committed) handed = committed();
      },
      { ownEvents: true },
    );
    const unsubscribeOnce = await hub.subscribe(runId, (_, seq) => heardOnce.push(seq));
    const output: RunEvent = {
      type: "call_progress",
      // Keys in an order jsonb does not keep, and text it must make storable (NUL, a lone surrogate).
      payload: { stepIndex: 0, batchIndex: 1, progress: 2, total: 3, message: "zeta \u0000 \ud800 end" },
    };
    const { seqs } = await appendEvents(handle.db, runId, [progress, output], { fence: "holder" });
    expect(handed.map((event) => event.seq)).toEqual(seqs);
    expect(handed).toEqual(await readEvents(handle.db, runId, (seqs?.[0] ?? 1) - 1));
    // A listener that did not ask for the events hears the write once.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(heardOnce.filter((seq) => seq === seqs?.[1])).toEqual([seqs?.[1]]);
    unsubscribeOnce();
    unsubscribe();
  });
  it("has the run's reader in this process read none of its own writes back, whenever their NOTIFYs arrive", async () => {
    const runId = await newRun();
    const createdUpTo = (await readEvents(handle.db, runId, 0)).at(-1)?.seq ?? 0;
    let reads = 0;
    const feed = createRunEventFeed(
      getRunEventHub(handle),
      (id, afterSeq, limit) => {
        reads += 1;
        return readEvents(handle.db, id, afterSeq, limit);
      },
      (error) => {
        throw error;
      },
    );
    const handed: number[] = [];
    const followed = await feed.follow(runId, createdUpTo, (events) =>
      handed.push(...events.map((event) => event.seq)),
    );
    const written: number[] = [];
    for (let write = 0; write < 30; write += 1) {
      written.push(...((await appendEvents(handle.db, runId, [progress], { fence: "holder" })).seqs ?? []));
    }
    expect(handed).toEqual(written);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the last NOTIFYs
    expect(reads).toBe(0);
    expect(handed).toEqual(written);
    followed.stop();
  });
});

describe(`a NOTIFY heard while this process's write of the run is on its way, on ${testDriverName}`, () => {
  // A hub whose NOTIFYs the test sends itself, at the moment it chooses, on a database of its own
  // (a database has one hub told of its writes).
  let own: DatabaseHandle;
  let notify: (payload: string) => void = () => {};
  let heard: Array<{ seq: number; withEvents: boolean }>;
  let runId: string;
  let lastSeq: number;
  let hub: RunEventHub;
  beforeAll(async () => {
    own = await openTestDatabase();
    hub = getRunEventHub({
      ...own,
      listen: async (_channel, onPayload) => {
        notify = onPayload;
        return async () => {};
      },
    });
  });
  afterAll(() => own?.close());

  beforeEach(async () => {
    runId = await newRun(own);
    lastSeq = (await readEvents(own.db, runId, 0)).at(-1)?.seq ?? 0;
    heard = [];
    await hub.subscribe(runId, (_, seq, committed) => heard.push({ seq, withEvents: Boolean(committed) }), {
      ownEvents: true,
    });
  });

  it("waits for the write: the write's own NOTIFY, heard first, is not announced as a bare seq to read back", async () => {
    const writing = appendEvents(own.db, runId, [progress, progress], { fence: "holder" });
    notify(`${runId}:${lastSeq + 2}`); // the write's own NOTIFY, before its result
    expect(heard).toEqual([]);
    const { seqs } = await writing;
    expect(seqs).toEqual([lastSeq + 1, lastSeq + 2]);
    expect(heard).toEqual([{ seq: lastSeq + 2, withEvents: true }]);
  });

  it("announces a later seq of another instance, heard meanwhile, after the write", async () => {
    const writing = appendEvents(own.db, runId, [progress], { fence: null });
    notify(`${runId}:${lastSeq + 7}`); // not this write's: it takes one seq
    await writing;
    expect(heard).toEqual([
      { seq: lastSeq + 1, withEvents: true },
      { seq: lastSeq + 7, withEvents: false },
    ]);
  });

  it("announces what was held when the write fails, and holds nothing after it", async () => {
    const writing = appendEvents(own.db, runId, [progress], { fence: "not-the-holder" });
    notify(`${runId}:${lastSeq + 3}`);
    await expect(writing).rejects.toBeInstanceOf(LostClaimError);
    expect(heard).toEqual([{ seq: lastSeq + 3, withEvents: false }]);
    notify(`${runId}:${lastSeq + 4}`);
    expect(heard.at(-1)).toEqual({ seq: lastSeq + 4, withEvents: false });
  });

  it("holds a run's NOTIFYs only while that run is written: another run's are announced at once", async () => {
    const other = crypto.randomUUID();
    const heardOther: number[] = [];
    await hub.subscribe(other, (_, seq) => heardOther.push(seq));
    const writing = appendEvents(own.db, runId, [progress], { fence: "holder" });
    notify(`${other}:5`);
    expect(heardOther).toEqual([5]);
    await writing;
  });
});
