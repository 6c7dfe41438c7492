import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "./client";
import { ensureEventPartitions, listEventPartitions } from "./event-partitions";
import { readLatestEvent, rowsOf } from "./repositories/append-event";
import { runEvents, runs } from "./schema";
import { openTestDatabase, testDriverName } from "./testing/test-database";

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase();
});
afterAll(async () => {
  await handle?.close();
});

/** A finished run with an event at each of `createdAt`: `events`' types and payloads, or `call_progress`. */
async function insertRunWithEvents(
  createdAt: Date[],
  events: ReadonlyArray<{ type: string; payload: unknown }> = [],
): Promise<string> {
  const runId = randomUUID();
  await handle.db.insert(runs).values({
    id: runId,
    name: "partitioned",
    status: "COMPLETED",
    scenario: { name: "partitioned", model: { kind: "scripted", turns: [] } },
    limits: { maxParallelToolCalls: 8 },
    lastSeq: createdAt.length,
  });
  await handle.db.insert(runEvents).values(
    createdAt.map((at, index) => ({
      runId,
      seq: index + 1,
      ...(events[index] ?? { type: "call_progress", payload: {} }),
      createdAt: at,
    })),
  );
  return runId;
}

/** Which table each of a run's events is stored in, by seq. */
async function partitionsOf(runId: string): Promise<string[]> {
  const result = await handle.db.execute(
    sql`select tableoid::regclass::text as partition from run_events where run_id = ${runId}::uuid order by seq`,
  );
  return rowsOf<{ partition: string }>(result).map((row) => row.partition);
}

/** The message a refused statement failed with, or "done" if it was not refused. */
const refusalOf = (query: PromiseLike<unknown>) =>
  Promise.resolve(query).then(
    () => "done",
    (error: Error) => String((error.cause as Error | undefined)?.message ?? error.message),
  );

describe(`run_events' partitions on ${testDriverName}`, () => {
  it("are made months ahead of the clock, once, and each month's events are filed in its own", async () => {
    const clock = new Date("2031-05-15T10:00:00Z");
    const made = await ensureEventPartitions(handle.db, clock);
    expect(made).toEqual([
      "run_events_2031_05",
      "run_events_2031_06",
      "run_events_2031_07",
      "run_events_2031_08",
    ]);
    expect(await ensureEventPartitions(handle.db, clock)).toEqual([]);

    const july = (await listEventPartitions(handle.db)).find(
      (partition) => partition.name === "run_events_2031_07",
    );
    expect(july).toEqual({
      name: "run_events_2031_07",
      from: new Date("2031-07-01T00:00:00Z"),
      until: new Date("2031-08-01T00:00:00Z"),
    });

    const runId = await insertRunWithEvents([
      new Date("2031-06-30T23:59:59.999Z"),
      new Date("2031-07-01T00:00:00Z"),
      new Date("2031-09-02T00:00:00Z"),
    ]);
    // September was not made ahead of this clock: its event waits in the default partition, not refused.
    expect(await partitionsOf(runId)).toEqual([
      "run_events_2031_06",
      "run_events_2031_07",
      "run_events_default",
    ]);
    // And September cannot be made later over it: the error says why, and nothing is half made.
    expect(await refusalOf(ensureEventPartitions(handle.db, new Date("2031-08-20T00:00:00Z")))).toMatch(
      /cannot create run_events_2031_09 : run_events_default already holds events of that month/,
    );
    expect((await listEventPartitions(handle.db)).map((partition) => partition.name)).not.toContain(
      "run_events_2031_09",
    );
  });

  it("exist for this month and three ahead as soon as the database is opened", async () => {
    const names = (await listEventPartitions(handle.db)).map((partition) => partition.name);
    const month = (offset: number) => {
      const at = new Date();
      at.setUTCDate(1);
      at.setUTCMonth(at.getUTCMonth() + offset);
      return `run_events_${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, "0")}`;
    };
    expect(names).toEqual(expect.arrayContaining([month(0), month(1), month(2), month(3)]));
  });

  it("refuse UPDATE and DELETE on every partition, one made after the table included", async () => {
    await ensureEventPartitions(handle.db, new Date("2032-01-10T00:00:00Z"));
    const runId = await insertRunWithEvents([new Date(), new Date("2032-02-03T00:00:00Z")]);
    const [thisMonth, madeLater] = await partitionsOf(runId);
    expect(madeLater).toBe("run_events_2032_02");
    for (const table of ["run_events", thisMonth, madeLater]) {
      const name = sql.identifier(String(table));
      expect(await refusalOf(handle.db.execute(sql`update ${name} set type = 'rewritten'`))).toMatch(
        /run_events is append-only: UPDATE refused/,
      );
      expect(
        await refusalOf(handle.db.execute(sql`delete from ${name} where run_id = ${runId}::uuid`)),
      ).toMatch(/run_events is append-only: DELETE refused/);
    }
    expect(await partitionsOf(runId)).toEqual([thisMonth, madeLater]);
  });

  it("each have the key's index, so a run's events are read through it whatever months they lie in", async () => {
    const runId = await insertRunWithEvents([new Date(), new Date("2032-02-04T00:00:00Z")]);
    // With sequential scans ruled out, a partition without a usable index would still show one.
    const plan = await handle.db.transaction(async (transaction) => {
      await transaction.execute(sql`set local enable_seqscan = off`);
      const result = await transaction.execute(
        sql`explain (costs off) select * from run_events where run_id = ${runId}::uuid and seq > 0 order by seq`,
      );
      return rowsOf<Record<string, string>>(result)
        .map((row) => Object.values(row)[0])
        .join("\n");
    });
    expect(plan).not.toMatch(/Seq Scan/);
    expect(plan).toMatch(/run_events_2032_02_pkey/);
    expect(plan).toMatch(/run_events_default_pkey/);
  });

  it("answer a run's latest event of some types from whichever month holds it, each month's key index read backwards", async () => {
    const later = new Date("2032-02-05T00:00:00Z");
    const events = [
      { type: "wave_started", payload: { stepIndex: 0, batchIndexes: [0] } },
      { type: "call_started", payload: { stepIndex: 0, batchIndex: 0 } },
      { type: "call_started", payload: { stepIndex: 1, batchIndex: 0 } },
      { type: "call_progress", payload: {} },
    ];
    const runId = await insertRunWithEvents([new Date(), new Date(), later, later], events);
    expect(await readLatestEvent(handle.db, runId, ["call_started"])).toMatchObject({
      seq: 3,
      payload: { stepIndex: 1 },
    });
    // The later month holds none of the type: the earlier month's answers.
    expect(await readLatestEvent(handle.db, runId, ["wave_started"])).toMatchObject({ seq: 1 });
    expect(await readLatestEvent(handle.db, runId, ["run_finished"])).toBeNull();
    const plan = await handle.db.transaction(async (transaction) => {
      await transaction.execute(sql`set local enable_seqscan = off`);
      const result = await transaction.execute(
        sql`explain (costs off) select * from run_events where run_id = ${runId}::uuid
          and type in ('call_started', 'wave_started') order by seq desc limit 1`,
      );
      return rowsOf<Record<string, string>>(result)
        .map((row) => Object.values(row)[0])
        .join("\n");
    });
    // No sort of the run's events: each month hands its newest match first.
    expect(plan).not.toMatch(/(^|->\s+)(Incremental )?Sort\s*$/m);
    expect(plan).toMatch(/Index Scan Backward using run_events_default_pkey/);
  });
});
