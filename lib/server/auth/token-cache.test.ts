import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "@/db/client";
import { apikey } from "@/db/schema";
import { openTestDatabase, testDriverName } from "@/db/testing/test-database";
import { addUser, setUserActive, setUserRole } from "./account-changes";
import { createToken, revokeToken } from "./accounts";
import { type Auth, createAuth } from "./auth";
import { readIdentity } from "./identity";
import type { Identity } from "./request-identity";
import { attachTokenCache, createTokenCache, type TokenCache } from "./token-cache";

// docs/security.md#api-tokens: a verified token is kept briefly in each instance; a revocation, a
// deactivation or a new role takes effect at once, on the instance that made it and on every other.
const SECRET = "test-secret-0123456789abcdef";
const asBearer = (token: string) => new Headers({ authorization: `Bearer ${token}` });

/** An instance: its own connections to the database, its own auth and token cache. */
function instance(handle: DatabaseHandle): { auth: Auth; cache: TokenCache } {
  const auth = createAuth(handle.db, SECRET);
  // Kept far longer than any wait here: only the change's notification can make an instance refuse.
  const cache = createTokenCache(handle, { ttlMs: 60 * 60_000 });
  attachTokenCache(auth, cache);
  return { auth, cache };
}

/** Waits for an outcome (30 s at most: the notification's trip is milliseconds, but this machine may be busy). */
async function eventually(condition: () => Promise<boolean>, what: string) {
  for (let attempt = 0; attempt < 1500; attempt += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let counter = 0;
async function personWithToken(
  auth: Auth,
  db: DatabaseHandle["db"],
  role: "approver" | "admin" = "approver",
) {
  counter += 1;
  const email = `cached${counter}@example.com`;
  const person = await addUser(auth, db, null, {
    email,
    name: `Cached ${counter}`,
    password: "a-good-password",
    role,
  });
  const { token, summary } = await createToken(auth, db, { email, name: `agent ${counter}` });
  return { person, email, token, tokenId: summary.id };
}

describe(`the token cache on one instance (${testDriverName})`, () => {
  let handle: DatabaseHandle;
  let one: { auth: Auth; cache: TokenCache };
  beforeAll(async () => {
    handle = await openTestDatabase();
    one = instance(handle);
  });
  afterAll(async () => {
    await one.cache.close();
    await handle.close();
  });

  it("answers a known token from memory and still refuses an unknown one", async () => {
    const { token } = await personWithToken(one.auth, handle.db);
    const first = await readIdentity(asBearer(token), one.auth);
    const hitsBefore = one.cache.hits;
    const second = await readIdentity(asBearer(token), one.auth);
    expect(second).toEqual(first);
    expect(one.cache.hits).toBe(hitsBefore + 1);

    const unknown = `${token.slice(0, -4)}zzzz`;
    expect(await readIdentity(asBearer(unknown), one.auth)).toBeNull();
    expect(await readIdentity(asBearer(unknown), one.auth)).toBeNull();
    expect(one.cache.hits).toBe(hitsBefore + 1);
  });

  it("refuses a revoked token and a deactivated owner's at once, and gives a new role at once", async () => {
    const revoked = await personWithToken(one.auth, handle.db);
    await readIdentity(asBearer(revoked.token), one.auth);
    await revokeToken(handle.db, revoked.tokenId);
    expect(await readIdentity(asBearer(revoked.token), one.auth)).toBeNull();

    const demoted = await personWithToken(one.auth, handle.db);
    expect((await readIdentity(asBearer(demoted.token), one.auth))?.role).toBe("approver");
    await setUserRole(one.auth, handle.db, null, { email: demoted.email, role: "viewer" });
    expect((await readIdentity(asBearer(demoted.token), one.auth))?.role).toBe("viewer");

    const deactivated = await personWithToken(one.auth, handle.db);
    await readIdentity(asBearer(deactivated.token), one.auth);
    await setUserActive(one.auth, handle.db, null, { email: deactivated.email, isActive: false });
    expect(await readIdentity(asBearer(deactivated.token), one.auth)).toBeNull();
  });

  it("hears a change made by SQL by hand (the trigger announces it, whoever writes)", async () => {
    const { token, person } = await personWithToken(one.auth, handle.db);
    await readIdentity(asBearer(token), one.auth);
    await handle.db.execute(sql`update "user" set banned = true where id = ${person.id}`);
    await eventually(async () => (await readIdentity(asBearer(token), one.auth)) === null, "the refusal");
  });

  it("does not keep what a verification read before a change it did not see", async () => {
    const identity = { userId: "u1", token: { id: "t1", name: "t" } } as Identity;
    const answer = await one.cache.read("tp_race", async () => {
      one.cache.forget({ token: "t1" }); // the change lands while the token is being read
      return { identity, expiresAt: null };
    });
    expect(answer).toBe(identity);
    let verifications = 0;
    await one.cache.read("tp_race", async () => {
      verifications += 1;
      return null;
    });
    expect(verifications).toBe(1);
  });

  it("writes a token's last use coalesced, not per request", async () => {
    const { token, tokenId } = await personWithToken(one.auth, handle.db);
    await readIdentity(asBearer(token), one.auth); // a miss: better-auth records this use itself
    await handle.db
      .update(apikey)
      .set({ lastRequest: new Date(0) })
      .where(eq(apikey.id, tokenId));
    const before = Date.now();
    for (let request = 0; request < 5; request += 1) await readIdentity(asBearer(token), one.auth);
    const lastUsed = async () =>
      (await handle.db.select().from(apikey).where(eq(apikey.id, tokenId)))[0]?.lastRequest?.getTime();
    expect(await lastUsed()).toBe(0);
    await one.cache.flush();
    expect(await lastUsed()).toBeGreaterThanOrEqual(before - 1);
  });
});

// Two instances on one Postgres, each with its own connections, LISTEN and cache.
describe.runIf(process.env.TEST_DATABASE_URL)("the token cache across instances (postgres)", () => {
  let first: DatabaseHandle & { url?: string };
  let second: DatabaseHandle;
  let a: { auth: Auth; cache: TokenCache };
  let b: { auth: Auth; cache: TokenCache };
  beforeAll(async () => {
    first = await openTestDatabase();
    second = await openDatabase({ url: first.url });
    a = instance(first);
    b = instance(second);
  });
  afterAll(async () => {
    await a.cache.close();
    await b.cache.close();
    await second.close();
    await first.close();
  });

  /** B has the token in memory: its second read is a hit. */
  async function warm(token: string) {
    await readIdentity(asBearer(token), b.auth);
    const hits = b.cache.hits;
    expect(await readIdentity(asBearer(token), b.auth)).not.toBeNull();
    expect(b.cache.hits).toBe(hits + 1);
  }

  // B refuses as soon as it hears A's change: the outcome is awaited, since which of the notification
  // and B's next request arrives first is the network's business, not the test's.
  it("a token revoked on A is refused on B once B hears it, without waiting out the cache", async () => {
    const { token, tokenId } = await personWithToken(a.auth, first.db);
    await warm(token);
    await revokeToken(first.db, tokenId);
    await eventually(async () => (await readIdentity(asBearer(token), b.auth)) === null, "B's refusal");
    expect(await readIdentity(asBearer(token), b.auth)).toBeNull();
  });

  it("a person deactivated on A is refused on B once B hears it; a new role likewise", async () => {
    const deactivated = await personWithToken(a.auth, first.db);
    await warm(deactivated.token);
    await setUserActive(a.auth, first.db, null, { email: deactivated.email, isActive: false });
    await eventually(
      async () => (await readIdentity(asBearer(deactivated.token), b.auth)) === null,
      "B's refusal",
    );

    const demoted = await personWithToken(a.auth, first.db);
    await warm(demoted.token);
    await setUserRole(a.auth, first.db, null, { email: demoted.email, role: "viewer" });
    await eventually(
      async () => (await readIdentity(asBearer(demoted.token), b.auth))?.role === "viewer",
      "B's new role",
    );
  });
});
