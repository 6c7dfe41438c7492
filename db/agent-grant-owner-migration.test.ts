import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { openEmptyDatabase, type PartlyMigratedDatabase } from "./testing/partly-migrated-database";
import { testDriverName } from "./testing/test-database";

const opened: PartlyMigratedDatabase[] = [];
afterAll(async () => {
  for (const database of opened) await database.close();
});

describe(`migration 0022 on ${testDriverName}`, () => {
  it("binds each outside agent's grant to the owner of the run it was given in, and revokes those whose run is gone", {
    timeout: 120_000,
  }, async () => {
    const database = await openEmptyDatabase();
    opened.push(database);
    await database.migrate("0022");
    const agentRun = randomUUID();
    const scenarioRun = randomUUID();
    const openedBy = { tokenId: "token-ana", tokenName: "ci", ownerId: "u-ana", ownerName: "Ana" };
    const scenarios = [
      [
        agentRun,
        { name: "agent writes", model: { kind: "agent", agent: { name: "grant-agent" }, openedBy } },
      ],
      [scenarioRun, { name: "writer", model: { kind: "scripted", turns: [] } }],
    ] as const;
    for (const [runId, scenario] of scenarios) {
      await database.query(
        `insert into runs (id, name, status, scenario, limits) values ($1, $2, 'COMPLETED', $3, '{}')`,
        [runId, scenario.name, JSON.stringify(scenario)],
      );
    }
    const grants = {
      ofAgent: [randomUUID(), "agent:grant-agent", agentRun],
      ofDeletedRun: [randomUUID(), "agent:grant-agent", randomUUID()],
      ofScenario: [randomUUID(), "scenario:writer", scenarioRun],
    } as const;
    for (const [id, agent, runId] of Object.values(grants)) {
      await database.query(
        `insert into tool_grants (id, tool_name, scope, agent, created_in_run_id, created_by_name)
         values ($1, 'write_file', 'agent', $2, $3, 'bob')`,
        [id, agent, runId],
      );
    }

    // Up to 0023, which revokes grants kept by a scenario's name (its own test says so).
    await database.migrate("0023");

    const read = async (id: string) =>
      (
        await database.query<Record<string, unknown>>(
          `select agent_owner_id, agent_owner_name, revoked_at is not null as revoked, revoked_by_name
           from tool_grants where id = $1`,
          [id],
        )
      )[0];
    expect(await read(grants.ofAgent[0])).toEqual({
      agent_owner_id: "u-ana",
      agent_owner_name: "Ana",
      revoked: false,
      revoked_by_name: null,
    });
    expect(await read(grants.ofDeletedRun[0])).toMatchObject({
      agent_owner_id: null,
      revoked: true,
      revoked_by_name: expect.stringContaining("migration 0022"),
    });
    // A scenario's grant has no owner: 0022 leaves it as it was.
    expect(await read(grants.ofScenario[0])).toEqual({
      agent_owner_id: null,
      agent_owner_name: null,
      revoked: false,
      revoked_by_name: null,
    });
  });
});
