import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRunStoreContract } from "@/lib/runtime/run/run-store.contract";
import type { DatabaseHandle } from "../client";
import { runs, steps, toolCalls } from "../schema";
import { openTestDatabase, testDriverName } from "../testing/test-database";
import { createRunRepository } from "./run-repository";

describeRunStoreContract(testDriverName, async () => {
  const handle = await openTestDatabase();
  return { store: createRunRepository(handle.db), close: () => handle.close() };
});

// The contract reads events; the tables beside them (steps, tool_calls, runs) are for people who
// query the database, and each is written by the same statement as its event.
describe(`the tables beside the events on ${testDriverName}`, () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(() => handle?.close());

  const call = (batchIndex: number) => ({
    batchIndex,
    id: `c${batchIndex}`,
    name: "read_file",
    arguments: "{}",
    parsedArguments: {},
    resourceClass: "pure_read" as const,
    effect: "READ" as const,
    isGated: false,
    problem: null,
  });
  const metrics = {
    originalSize: 3,
    cap: 8,
    waveCount: 1,
    waveBoundaries: [[0, 2]] as Array<[number, number]>,
    completedWaves: 0,
    approvalBarriers: 0,
    retainedCount: 0,
    invalidatedCount: 0,
    repairReason: null,
  };

  it("stamps each call with its start and settle seqs, outcome, and the step with its final metrics", async () => {
    const store = createRunRepository(handle.db);
    const runId = crypto.randomUUID();
    const token = "t";
    await store.createRun({
      id: runId,
      name: "tables",
      scenario: {},
      limits: { maxParallelToolCalls: 8, maxBatchPayloadBytes: 1000, maxRepairAttempts: 2 },
      claimToken: token,
      leaseMs: 60_000,
      startedBy: null,
      files: [],
    });
    await store.recordStep(
      runId,
      token,
      {
        index: 0,
        completion: { latencyMs: 0, usage: null, preamble: null, synthesized: false },
        text: null,
        plan: { kind: "execute", segments: [{ kind: "wave", batchIndexes: [0, 1, 2] }], problems: [] },
        metrics,
        calls: [0, 1, 2].map((index) => ({ call: call(index), status: "pending" as const, error: null })),
      },
      4,
    );
    const started = await store.startCalls(runId, token, 0, [0, 1], { wave: true });
    const settled = await store.settleCalls(runId, token, 0, [
      { batchIndex: 0, outcome: { status: "ok", result: { text: "bad \u0000 byte" }, error: null } },
      { batchIndex: 1, outcome: { status: "error", result: null, error: { code: "x", message: "y" } } },
    ]);
    await store.invalidateCalls(
      runId,
      token,
      0,
      [
        {
          batchIndex: 2,
          outcome: { status: "invalidated", result: null, error: { code: "invalidated", message: "no" } },
        },
      ],
      "turn_cancelled",
    );
    await store.finishStep(runId, token, 0, { ...metrics, completedWaves: 1, invalidatedCount: 1 });

    const rows = await handle.db
      .select()
      .from(toolCalls)
      .where(eq(toolCalls.runId, runId))
      .orderBy(asc(toolCalls.batchIndex));
    expect(rows).toMatchObject([
      {
        batchIndex: 0,
        status: "ok",
        startSeq: "seqs" in started ? started.seqs[0] : null,
        settleSeq: settled[0],
        result: { text: "bad \uFFFD byte" },
        error: null,
      },
      { batchIndex: 1, status: "error", result: null, error: { code: "x", message: "y" } },
      {
        batchIndex: 2,
        status: "invalidated",
        startSeq: null,
        settleSeq: null,
        error: { code: "invalidated" },
      },
    ]);
    const [step] = await handle.db.select().from(steps).where(eq(steps.runId, runId));
    expect(step?.metrics).toMatchObject({ completedWaves: 1, invalidatedCount: 1 });
    const [run] = await handle.db.select().from(runs).where(eq(runs.id, runId));
    expect(run).toMatchObject({ modelCalls: 4, lastSeq: 9 });

    await store.finishRun(runId, token, "FAILED", { code: "boom", message: "broke" });
    const [finished] = await handle.db.select().from(runs).where(eq(runs.id, runId));
    expect(finished).toMatchObject({
      status: "FAILED",
      error: { code: "boom" },
      claimToken: null,
      state: null,
    });
    expect(finished?.finishedAt).toBeInstanceOf(Date);
  });
});
