import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decision } from "@/lib/runtime/coordinator/decision";
import type { RunRecord } from "@/lib/runtime/run/run-records";
import type { RunStore } from "@/lib/runtime/run/run-store";
import type { PendingTurn } from "@/lib/runtime/run/run-types";
import { twoGatedWrites } from "@/lib/runtime/testing/scenario-fixtures";
import { buildScenario, type MemoryHarness, openMemoryHarness } from "@/lib/runtime/testing/scenario-harness";
import { createWaitingRunMemory } from "./waiting-run-memory";

let harness: MemoryHarness;
beforeAll(() => {
  harness = openMemoryHarness();
});
afterAll(() => harness?.close());

async function pendingOf(runId: string): Promise<PendingTurn> {
  const pending = (await harness.host.getReport(runId))?.pending;
  if (!pending) throw new Error(`run ${runId} waits at nothing`);
  return pending;
}

async function startWaiting(name: string) {
  const { runId, settled } = await harness.host.startRun(buildScenario(twoGatedWrites(name)));
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  return { runId, pending: await pendingOf(runId) };
}

const approve = (pending: PendingTurn, actor = "alice"): Decision => ({
  approve: true,
  turnDigest: pending.turnDigest,
  actor,
});

/**
 * A host of its own (another process: its own memory) over the harness's store, counting its reads
 * of runs and its decisions' writes; `refuseFencedWrites` times, the one fenced write is refused as
 * if the run had changed since it was read.
 */
function countingHost(refuseFencedWrites = 0) {
  const counted = { reads: 0, writes: [] as string[] };
  let refusals = refuseFencedWrites;
  const host = harness.hostWith(
    (repository): RunStore => ({
      ...repository,
      async getRun(runId) {
        counted.reads += 1;
        return repository.getRun(runId);
      },
      async claimAndRecordDecision(...args) {
        counted.writes.push("claimAndRecordDecision");
        if (refusals > 0) {
          refusals -= 1;
          return false;
        }
        return repository.claimAndRecordDecision(...args);
      },
      async claimWaitingRun(...args) {
        counted.writes.push("claimWaitingRun");
        return repository.claimWaitingRun(...args);
      },
    }),
  );
  /** Forgets what was counted so far (the page's own read). */
  const reset = () => {
    counted.reads = 0;
    counted.writes.length = 0;
  };
  return { host, counted, reset };
}

/** A waiting run, and a counting host of its own that has just read it as the run's page does, nothing counted yet. */
async function readByItsPage(name: string, refuseFencedWrites = 0) {
  const { runId, pending } = await startWaiting(name);
  const { host, counted, reset } = countingHost(refuseFencedWrites);
  await host.getRun(runId);
  reset();
  return { runId, pending, host, counted };
}

/** How many times a gated write was started (the runs' steps 0 and 1; step 2 is `finish`). */
const starts = async (runId: string) =>
  (await harness.events(runId)).filter(
    (event) => event.type === "call_started" && event.payload.stepIndex < 2,
  ).length;

describe("a decision checked against the row its page read", () => {
  it("reads the run no more: the checks use that row and the one write is fenced on it", async () => {
    const { runId, pending, host, counted } = await readByItsPage("remembered");
    const started = await host.startDecision(runId, approve(pending));
    expect(started.outcome).toBe("executed");
    expect(counted).toEqual({ reads: 0, writes: ["claimAndRecordDecision"] });
    expect(await started.settled).toBe("WAITING_FOR_APPROVAL");
    expect(await starts(runId)).toBe(1);
  });

  it("is used once: a second decision on the run reads it", async () => {
    const { runId, pending } = await startWaiting("once");
    const { host, counted, reset } = countingHost();
    await host.getRun(runId);
    await host.decide(runId, approve(pending));
    reset();
    await host.decide(runId, approve(await pendingOf(runId)));
    expect(counted.reads).toBe(1);
    expect(counted.writes).toEqual(["claimAndRecordDecision"]);
  });

  it("a row whose turn another process has since decided: the decision on the turn now waiting goes through, from a fresh read", async () => {
    const { runId, pending, host, counted } = await readByItsPage("moved on"); // the first barrier
    expect(await harness.host.decide(runId, approve(pending, "bob"))).toMatchObject({
      status: "WAITING_FOR_APPROVAL",
    });
    const second = await pendingOf(runId);
    expect(second.turnDigest).not.toBe(pending.turnDigest);
    expect(await host.decide(runId, approve(second))).toEqual({ outcome: "executed", status: "COMPLETED" });
    expect(counted).toEqual({ reads: 1, writes: ["claimAndRecordDecision"] });
    expect(await starts(runId)).toBe(2);
  });

  it("a row of a run that has since finished: the decision is refused not_waiting and executes nothing", async () => {
    const { runId, pending, host, counted } = await readByItsPage("finished since");
    await harness.host.decide(runId, approve(pending, "bob"));
    expect(await harness.host.decide(runId, approve(await pendingOf(runId), "bob"))).toMatchObject({
      status: "COMPLETED",
    });
    await expect(host.decide(runId, approve(pending))).rejects.toMatchObject({ code: "not_waiting" });
    // Checks passed on the remembered row; its fenced write was refused; the fresh read refused it.
    expect(counted).toEqual({ reads: 1, writes: ["claimAndRecordDecision"] });
    expect(await starts(runId)).toBe(2);
    expect((await harness.store.listApprovals(runId)).map((row) => row.actor)).toEqual(["bob", "bob"]);
  });

  it("a fenced write refused (the run changed since, its turn the same): the decision is made again from a fresh read", async () => {
    const { runId, pending, host, counted } = await readByItsPage("changed since", 1);
    expect(await host.startDecision(runId, approve(pending))).toMatchObject({ outcome: "executed" });
    expect(counted).toEqual({ reads: 1, writes: ["claimAndRecordDecision", "claimAndRecordDecision"] });
    expect(await starts(runId)).toBe(1);
  });

  it("starts again once only: a fresh read's write refused too goes the step-by-step way", async () => {
    const { runId, pending, host, counted } = await readByItsPage("refused twice", 2);
    expect(await host.startDecision(runId, approve(pending))).toMatchObject({ outcome: "executed" });
    expect(counted.writes).toEqual(["claimAndRecordDecision", "claimAndRecordDecision", "claimWaitingRun"]);
    expect(await starts(runId)).toBe(1);
  });

  it("a decision on a stale remembered row does not hold a right one here away while its write is refused", async () => {
    const { runId, pending } = await startWaiting("not held away");
    let releaseStale = () => {};
    const staleWrite = new Promise<void>((resolve) => {
      releaseStale = resolve;
    });
    let writes = 0;
    const host = harness.hostWith((repository) => ({
      ...repository,
      async claimAndRecordDecision(...args) {
        writes += 1;
        if (writes === 1) await staleWrite; // the stale row's write, still on its way
        return repository.claimAndRecordDecision(...args);
      },
    }));
    await host.getRun(runId); // remembers the first barrier
    await harness.host.decide(runId, approve(pending, "bob")); // another process: now the second
    const second = await pendingOf(runId);
    const stale = host.decide(runId, approve(pending)); // the first barrier's digest, on the stale row
    const right = await host.startDecision(runId, approve(second));
    expect(right.outcome).toBe("executed");
    releaseStale();
    // Its write refused (the run changed), the fresh read finds the run running on: not waiting.
    await expect(stale).rejects.toMatchObject({ code: "not_waiting" });
    expect(await right.settled).toBe("COMPLETED");
    expect(await starts(runId)).toBe(2);
  });

  it("a wrong digest is refused stale_turn by the fresh read, never by the remembered row alone; the run still waits", async () => {
    const { runId, pending, host, counted } = await readByItsPage("wrong digest");
    await expect(
      host.decide(runId, { ...approve(pending), turnDigest: "0".repeat(64) }),
    ).rejects.toMatchObject({
      code: "stale_turn",
    });
    expect(counted).toEqual({ reads: 1, writes: [] });
    expect(harness.store.inspect(runId).status).toBe("WAITING_FOR_APPROVAL");
  });
});

describe("the memory of waiting runs", () => {
  const row = (id: string, status: RunRecord["status"] = "WAITING_FOR_APPROVAL") =>
    ({ id, status, version: "1" }) as RunRecord;

  it("hands a waiting row out once, and forgets a run read when it is not waiting", () => {
    const memory = createWaitingRunMemory();
    memory.remember(row("a"));
    expect(memory.take("a")?.id).toBe("a");
    expect(memory.take("a")).toBeUndefined();
    memory.remember(row("b"));
    memory.remember(row("b", "RUNNING"));
    expect(memory.take("b")).toBeUndefined();
  });

  it("keeps the most recently read runs up to its capacity", () => {
    const memory = createWaitingRunMemory({ capacity: 2 });
    memory.remember(row("a"));
    memory.remember(row("b"));
    memory.remember(row("a")); // read again: the most recent
    memory.remember(row("c"));
    expect(memory.take("b")).toBeUndefined();
    expect(memory.take("a")?.id).toBe("a");
    expect(memory.take("c")?.id).toBe("c");
  });

  it("hands out no row read longer ago than it keeps them, and lets such rows go", () => {
    let now = 0;
    const memory = createWaitingRunMemory({ forMs: 10_000, now: () => now });
    memory.remember(row("a"));
    now = 10_000;
    memory.remember(row("b"));
    expect(memory.take("a")?.id).toBe("a");
    memory.remember(row("a"));
    now = 20_001;
    expect(memory.take("b")).toBeUndefined();
    memory.remember(row("c")); // lets "a" go, read 10,001 ms ago
    now = 20_000; // a clock that went back would still not bring it back
    expect(memory.take("a")).toBeUndefined();
    expect(memory.take("c")?.id).toBe("c");
  });
});
