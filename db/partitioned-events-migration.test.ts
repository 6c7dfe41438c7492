import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { openEmptyDatabase, type PartlyMigratedDatabase } from "./testing/partly-migrated-database";
import { testDriverName } from "./testing/test-database";

const opened: PartlyMigratedDatabase[] = [];
afterAll(async () => {
  for (const database of opened) await database.close();
});

describe(`migration 0017 on ${testDriverName}`, () => {
  it("moves every event of an unpartitioned log into the monthly partitions, and keeps it append-only", {
    timeout: 120_000,
  }, async () => {
    const database = await openEmptyDatabase();
    opened.push(database);
    // As it was before run_events was partitioned.
    await database.migrate("0017");
    const runIds = [randomUUID(), randomUUID()];
    for (const runId of runIds) {
      await database.query(
        `insert into runs (id, name, status, scenario, limits, last_seq) values ($1, 'old', 'COMPLETED', '{}', '{}', 3)`,
        [runId],
      );
    }
    // Events from well before the migration, across months and a year boundary, and one of now.
    const times = ["2024-12-31T23:59:59.5Z", "2025-01-01T00:00:00Z", "2025-03-10T12:00:00Z"];
    for (const [index, at] of times.entries()) {
      await database.query(
        `insert into run_events (run_id, seq, type, version, payload, created_at) values ($1, $2, 'call_progress', 2, $3, $4)`,
        [runIds[0], index + 1, JSON.stringify({ progress: index }), at],
      );
    }
    await database.query(
      `insert into run_events (run_id, seq, type, payload) values ($1, 1, 'run_started', '{"name":"now"}')`,
      [runIds[1]],
    );
    const readAll = () =>
      database.query<Record<string, unknown>>(
        `select run_id, seq, type, version, payload::text as payload, created_at::text as created_at
         from run_events order by run_id, seq`,
      );
    const rowsBefore = await readAll();
    expect(rowsBefore).toHaveLength(4);

    await database.migrate();

    expect(await readAll()).toEqual(rowsBefore);
    expect(
      await database.query(`select relkind::text as kind from pg_class where relname = 'run_events'`),
    ).toEqual([{ kind: "p" }]);
    const filed = await database.query<{ partition: string; count: number }>(
      `select tableoid::regclass::text as partition, count(*)::int as count from run_events group by 1 order by 1`,
    );
    expect(filed.map((row) => row.partition)).toEqual(
      expect.arrayContaining(["run_events_2024_12", "run_events_2025_01", "run_events_2025_03"]),
    );
    expect(filed.map((row) => row.partition)).not.toContain("run_events_default");
    // The months between were made too, so nothing of theirs lands in the default partition.
    expect(await database.query(`select 1 from pg_class where relname = 'run_events_2025_02'`)).toHaveLength(
      1,
    );
    // The notification outbox's trigger is on the new table, and the copy did not fire it.
    const noted = async () =>
      (await database.query<{ count: number }>(`select count(*)::int as count from notification_events`))[0]
        ?.count;
    expect(await noted()).toBe(0);
    await database.query(
      `insert into run_events (run_id, seq, type, payload) values ($1, 2, 'awaiting_approval', '{}')`,
      [runIds[1]],
    );
    expect(await noted()).toBe(1);
    await expect(database.query(`delete from run_events_2025_01`)).rejects.toThrow(
      /run_events is append-only/,
    );
    await expect(database.query(`update run_events set type = 'x'`)).rejects.toThrow(
      /run_events is append-only/,
    );
  });
});
