import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "./client";
import { approvals, memoryEntries, runEvents, runs, steps, tasks, toolCalls, workspaceFiles } from "./schema";
import { openTestDatabase, testDriverName } from "./testing/test-database";

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase();
});
afterAll(async () => {
  await handle?.close();
});

async function insertRun(status: "RUNNING" | "WAITING_FOR_APPROVAL" = "RUNNING") {
  const id = randomUUID();
  await handle.db.insert(runs).values({
    id,
    name: "round trip",
    status,
    scenario: { name: "round trip", model: { kind: "scripted", turns: [] } },
    limits: { maxParallelToolCalls: 8 },
  });
  return id;
}

describe(`schema round trip on ${testDriverName}`, () => {
  it("stores and reads back a run with its jsonb state and defaults", async () => {
    const id = await insertRun("WAITING_FOR_APPROVAL");
    const state = { schemaVersion: 1, pending: [{ id: "c1", arguments: '{"a":1}' }] };
    await handle.db
      .update(runs)
      .set({ state, claimToken: "token", waitingSince: new Date() })
      .where(eq(runs.id, id));
    const [row] = await handle.db.select().from(runs).where(eq(runs.id, id));
    expect(row).toMatchObject({
      id,
      status: "WAITING_FOR_APPROVAL",
      state,
      claimToken: "token",
      modelCalls: 0,
      lastSeq: 0,
    });
    expect(row?.createdAt).toBeInstanceOf(Date);
  });

  it("refuses a status outside the five of RUN_STATUSES", async () => {
    const id = randomUUID();
    await expect(
      handle.db
        .insert(runs)
        .values({ id, name: "x", status: "PAUSED" as "RUNNING", scenario: {}, limits: {} }),
    ).rejects.toThrow();
  });

  it("stores steps and tool calls keyed by run, step and batchIndex", async () => {
    const runId = await insertRun();
    const plan = { kind: "execute", segments: [{ kind: "wave", batchIndexes: [0] }], problems: [] };
    await handle.db.insert(steps).values({ runId, index: 0, plan, metrics: { cap: 8 } });
    await handle.db.insert(toolCalls).values({
      runId,
      stepIndex: 0,
      batchIndex: 0,
      callId: "c1",
      name: "read_file",
      arguments: '{"path": "a.txt"}',
      status: "ok",
      result: { content: "x" },
      startSeq: 1,
      settleSeq: 2,
    });
    const [step] = await handle.db.select().from(steps).where(eq(steps.runId, runId));
    expect(step?.plan).toEqual(plan);
    const [call] = await handle.db.select().from(toolCalls).where(eq(toolCalls.runId, runId));
    expect(call).toMatchObject({
      callId: "c1",
      arguments: '{"path": "a.txt"}',
      result: { content: "x" },
      startSeq: 1,
      settleSeq: 2,
    });
    await expect(
      handle.db.insert(toolCalls).values({
        runId,
        stepIndex: 0,
        batchIndex: 0,
        callId: "dup",
        name: "x",
        arguments: "",
        status: "ok",
      }),
    ).rejects.toThrow();
  });

  it("keeps approvals append-only", async () => {
    const runId = await insertRun();
    const [stored] = await handle.db
      .insert(approvals)
      .values({ runId, turnDigest: "ab".repeat(32), approve: true, actor: "alice", reason: "ok" })
      .returning();
    expect(stored).toMatchObject({ runId, approve: true, actor: "alice" });
    await expect(
      handle.db.update(approvals).set({ approve: false }).where(eq(approvals.runId, runId)),
    ).rejects.toThrow();
    await expect(handle.db.delete(approvals).where(eq(approvals.runId, runId))).rejects.toThrow();
    const rows = await handle.db.select().from(approvals).where(eq(approvals.runId, runId));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.approve).toBe(true);
  });

  it("keeps run events append-only with a unique key per run, seq and time", async () => {
    const runId = await insertRun();
    const createdAt = new Date();
    await handle.db.insert(runEvents).values([
      { runId, seq: 1, type: "run_started", payload: {}, createdAt },
      { runId, seq: 2, type: "step_planned", payload: { index: 0 }, createdAt },
    ]);
    // The key holds the partition's column (migration 0017); appends take seqs from runs.last_seq.
    await expect(
      handle.db.insert(runEvents).values({ runId, seq: 2, type: "dup", payload: {}, createdAt }),
    ).rejects.toThrow();
    await expect(handle.db.delete(runEvents).where(eq(runEvents.runId, runId))).rejects.toThrow();
    const rows = await handle.db
      .select()
      .from(runEvents)
      .where(eq(runEvents.runId, runId))
      .orderBy(runEvents.seq);
    expect(rows.map((row) => [row.seq, row.type])).toEqual([
      [1, "run_started"],
      [2, "step_planned"],
    ]);
  });

  it("stores each run's workspace files, memory and tasks separately", async () => {
    const first = await insertRun();
    const second = await insertRun();
    await handle.db.insert(workspaceFiles).values([
      { runId: first, path: "notes/todo.md", content: "buy milk" },
      { runId: second, path: "notes/todo.md", content: "other" },
    ]);
    await handle.db.insert(memoryEntries).values({ runId: first, key: "k", value: { nested: [1, 2] } });
    await handle.db.insert(tasks).values({ id: randomUUID(), runId: first, title: "ship it" });
    const [file] = await handle.db
      .select()
      .from(workspaceFiles)
      .where(and(eq(workspaceFiles.runId, first), eq(workspaceFiles.path, "notes/todo.md")));
    expect(file?.content).toBe("buy milk");
    const [memory] = await handle.db.select().from(memoryEntries).where(eq(memoryEntries.runId, first));
    expect(memory?.value).toEqual({ nested: [1, 2] });
    const taskRows = await handle.db.select().from(tasks).where(eq(tasks.runId, first));
    expect(taskRows.map((task) => task.title)).toEqual(["ship it"]);
  });

  it("runs on the driver it claims", async () => {
    const result = await handle.db.execute(sql`select version() as version`);
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{
      version: string;
    }>;
    expect(rows[0]?.version).toMatch(/PostgreSQL/);
    expect(handle.driver).toBe(testDriverName);
  });
});
