import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/db/client";
import { appendEvents, readEvents } from "@/db/repositories/append-event";
import { createRunRepository } from "@/db/repositories/run-repository";
import { openTestDatabase, testDriverName } from "@/db/testing/test-database";
import type { RunEvent, StoredRunEvent } from "@/lib/runtime";
import { getRunEventHub } from "./listen-fan-out";

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase();
});
afterAll(() => handle?.close());

async function newRun(): Promise<string> {
  const id = crypto.randomUUID();
  await createRunRepository(handle.db).createRun({
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
});
