/**
 * The contract every `GrantStore` keeps (the memory store, PGlite, the Postgres server). Import it
 * from a test file and call it inside the file's scope.
 */
import { describe, expect, it } from "vitest";
import type { GrantStore } from "./grant-store";
import type { NewToolGrant } from "./tool-grant";

const HOUR = 60 * 60 * 1000;

export function grantFixture(overrides: Partial<NewToolGrant> = {}): NewToolGrant {
  return {
    id: crypto.randomUUID(),
    toolName: "read_file",
    scope: "everyone",
    runId: null,
    agent: null,
    agentOwnerId: null,
    agentOwnerName: null,
    starterId: null,
    condition: null,
    toolFingerprint: null,
    expiresAt: null,
    maxUses: null,
    createdInRunId: crypto.randomUUID(),
    createdById: "u-alice",
    createdByName: "alice",
    ...overrides,
  };
}

// Each test opens its own database: the first of a file may build the migrated template (slow under load).
export function describeGrantStoreContract(
  label: string,
  open: () => Promise<{ store: GrantStore; close(): Promise<void> }>,
) {
  describe(`GrantStore contract: ${label}`, () => {
    it("keeps a grant as given, with no uses, and lists it while it is live", {
      timeout: 60_000,
    }, async () => {
      const { store, close } = await open();
      try {
        const created = await store.create(
          grantFixture({ condition: 'args.path.startsWith("docs/")', maxUses: 3 }),
        );
        expect(created).toMatchObject({ toolName: "read_file", uses: 0, maxUses: 3, revokedAt: null });
        expect(await store.get(created.id)).toEqual(created);
        const live = await store.listLive({ now: new Date(), toolNames: ["read_file"] });
        expect(live.map((grant) => grant.id)).toEqual([created.id]);
        expect(await store.listLive({ now: new Date(), toolNames: ["write_file"] })).toEqual([]);
      } finally {
        await close();
      }
    });

    it("lists no grant past its expiry, and takes no use of it", { timeout: 60_000 }, async () => {
      const { store, close } = await open();
      try {
        const now = Date.now();
        const created = await store.create(grantFixture({ expiresAt: new Date(now + HOUR).toISOString() }));
        expect(await store.listLive({ now: new Date(now + HOUR - 1000) })).toHaveLength(1);
        expect(await store.listLive({ now: new Date(now + HOUR) })).toEqual([]);
        expect(await store.takeUse(created.id, new Date(now + HOUR))).toBe(false);
      } finally {
        await close();
      }
    });

    it("counts uses up to the maximum, and of two racing for the last use exactly one gets it", {
      timeout: 60_000,
    }, async () => {
      const { store, close } = await open();
      try {
        const created = await store.create(grantFixture({ maxUses: 2 }));
        expect(await store.takeUse(created.id, new Date())).toBe(true);
        const race = await Promise.all([
          store.takeUse(created.id, new Date()),
          store.takeUse(created.id, new Date()),
        ]);
        expect(race.filter(Boolean)).toHaveLength(1);
        expect((await store.get(created.id))?.uses).toBe(2);
        expect(await store.listLive({ now: new Date() })).toEqual([]);
      } finally {
        await close();
      }
    });

    it("revokes once, naming who did, and a revoked grant is neither listed nor used", {
      timeout: 60_000,
    }, async () => {
      const { store, close } = await open();
      try {
        const created = await store.create(grantFixture());
        const revoked = await store.revoke(created.id, { name: "bob", id: "u-bob" }, new Date());
        expect(revoked).toMatchObject({ revokedByName: "bob", revokedById: "u-bob" });
        expect(revoked?.revokedAt).not.toBeNull();
        expect(await store.revoke(created.id, { name: "bob", id: "u-bob" }, new Date())).toBeNull();
        expect(await store.takeUse(created.id, new Date())).toBe(false);
        expect(await store.listLive({ now: new Date() })).toEqual([]);
        expect(await store.revoke(crypto.randomUUID(), { name: "bob", id: null }, new Date())).toBeNull();
      } finally {
        await close();
      }
    });

    it("keeps whose agent an agent grant is for, and none for a scenario's", {
      timeout: 60_000,
    }, async () => {
      const { store, close } = await open();
      try {
        const outside = await store.create(
          grantFixture({
            scope: "agent",
            agent: "agent:grant-agent",
            agentOwnerId: "u-ana",
            agentOwnerName: "Ana",
          }),
        );
        const scenario = await store.create(
          grantFixture({ scope: "agent", agent: `scenario:writer@${"a".repeat(64)}` }),
        );
        expect(await store.get(outside.id)).toMatchObject({
          agent: "agent:grant-agent",
          agentOwnerId: "u-ana",
          agentOwnerName: "Ana",
        });
        expect(await store.get(scenario.id)).toMatchObject({ agentOwnerId: null, agentOwnerName: null });
        const listed = await store.listLive({ now: new Date() });
        expect(listed.find((grant) => grant.id === outside.id)?.agentOwnerName).toBe("Ana");
      } finally {
        await close();
      }
    });

    it("lists a run's own grants by run", { timeout: 60_000 }, async () => {
      const { store, close } = await open();
      try {
        const runId = crypto.randomUUID();
        const own = await store.create(grantFixture({ scope: "run", runId }));
        await store.create(grantFixture({ scope: "run", runId: crypto.randomUUID() }));
        expect((await store.listLive({ now: new Date(), runId })).map((grant) => grant.id)).toEqual([own.id]);
      } finally {
        await close();
      }
    });
  });
}
