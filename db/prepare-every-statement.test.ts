import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { prepareEveryStatement } from "./prepare-every-statement";

// Prepared statements are a Postgres server's (PGlite runs in process: no round trips to save).
const url = process.env.TEST_DATABASE_URL;
// One connection, so the statements and the view of them are the same session's.
const client = url ? postgres(url, { max: 1, onnotice: () => {} }) : null;
afterAll(() => client?.end({ timeout: 5 }));

async function preparedStatements(): Promise<string[]> {
  if (!client) throw new Error("no server");
  const rows = await client`select statement from pg_prepared_statements where not from_sql`;
  return rows.map((row) => String(row.statement));
}

describe("drizzle on a Postgres server", () => {
  it.runIf(url)("prepares its statements once per connection, in transactions too", async () => {
    if (!client) return;
    const db = drizzle(prepareEveryStatement(client));
    const asked = sql`select ${41}::int + 1 as answer`;
    expect(await db.execute(asked)).toEqual([{ answer: 42 }]);
    expect(await db.execute(asked)).toEqual([{ answer: 42 }]);
    await db.transaction(async (transaction) => {
      await transaction.execute(sql`select ${"inside"}::text as place`);
    });

    const prepared = await preparedStatements();
    expect(prepared).toContain("select $1::int + 1 as answer");
    expect(prepared).toContain("select $1::text as place");
    // Once: the second run used the statement the first prepared.
    expect(prepared.filter((statement) => statement === "select $1::int + 1 as answer")).toHaveLength(1);
  });

  it.runIf(url)("drizzle alone would not prepare them: the wrapper is what does", async () => {
    if (!client) return;
    await drizzle(client).execute(sql`select ${1}::int as unwrapped`);
    expect(await preparedStatements()).not.toContain("select $1::int as unwrapped");
  });
});
