import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { openEmptyDatabase, type PartlyMigratedDatabase } from "./testing/partly-migrated-database";
import { testDriverName } from "./testing/test-database";

const opened: PartlyMigratedDatabase[] = [];
afterAll(async () => {
  for (const database of opened) await database.close();
});

describe(`migration 0023 on ${testDriverName}`, () => {
  it("revokes each live grant kept by a scenario's name alone, and leaves every other grant as it was", {
    timeout: 120_000,
  }, async () => {
    const database = await openEmptyDatabase();
    opened.push(database);
    await database.migrate("0023");
    const grants = {
      ofScenario: { id: randomUUID(), scope: "agent", agent: "scenario:writer", ownerId: null },
      ofOutsideAgent: { id: randomUUID(), scope: "agent", agent: "agent:grant-agent", ownerId: "u-ana" },
      forEveryone: { id: randomUUID(), scope: "everyone", agent: null, ownerId: null },
    };
    for (const { id, scope, agent, ownerId } of Object.values(grants)) {
      await database.query(
        `insert into tool_grants (id, tool_name, scope, agent, agent_owner_id, created_in_run_id, created_by_name)
         values ($1, 'write_file', $2, $3, $4, $5, 'bob')`,
        [id, scope, agent, ownerId, randomUUID()],
      );
    }
    const revokedBefore = randomUUID();
    await database.query(
      `insert into tool_grants (id, tool_name, scope, agent, created_in_run_id, created_by_name, revoked_at, revoked_by_name)
       values ($1, 'write_file', 'agent', 'scenario:writer', $2, 'bob', '2026-01-01T00:00:00Z', 'alice')`,
      [revokedBefore, randomUUID()],
    );

    await database.migrate();

    const read = async (id: string) =>
      (
        await database.query<Record<string, unknown>>(
          `select revoked_at is not null as revoked, revoked_by_name from tool_grants where id = $1`,
          [id],
        )
      )[0];
    expect(await read(grants.ofScenario.id)).toEqual({
      revoked: true,
      revoked_by_name: expect.stringContaining("migration 0023"),
    });
    for (const untouched of [grants.ofOutsideAgent, grants.forEveryone]) {
      expect(await read(untouched.id)).toEqual({ revoked: false, revoked_by_name: null });
    }
    expect(await read(revokedBefore)).toEqual({ revoked: true, revoked_by_name: "alice" });
  });
});
