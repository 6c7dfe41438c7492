import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "../client";
import { openTestDatabase, testDriverName } from "../testing/test-database";
import { rowsOf } from "./append-event";
import { waitingRunsCount } from "./run-list-queries";

describe(`the inbox's total (${testDriverName})`, () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => handle.close());

  it("is counted from the inbox's own index, without reading the waiting runs' rows", async () => {
    const { sql: text, params } = waitingRunsCount(handle.db).toSQL();
    // A parameter in place of the status would make a plan for any status, which cannot use the index.
    expect(params, "the inbox's conditions are literals").toEqual([]);
    const plan = await handle.db.transaction(async (transaction) => {
      // An empty table is scanned whatever the indexes: ask for the plan an index would give.
      await transaction.execute(sql`set local enable_seqscan = off`);
      return rowsOf<Record<string, string>>(await transaction.execute(sql.raw(`explain ${text}`)))
        .map((row) => Object.values(row).join(""))
        .join("\n");
    });
    expect(plan).toMatch(/Index Only Scan using runs_inbox_idx/);
  });
});
