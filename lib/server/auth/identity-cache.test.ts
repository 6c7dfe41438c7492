import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "@/db/client";
import { apikey } from "@/db/schema";
import { openTestDatabase, testDriverName } from "@/db/testing/test-database";
import { addUser, setUserActive, setUserRole } from "./account-changes";
import { createToken, revokeToken } from "./accounts";
import { type Auth, createAuth } from "./auth";
import { readIdentity } from "./identity";
import { attachIdentityCache, createIdentityCache, type IdentityCache } from "./identity-cache";
import type { Identity } from "./request-identity";

// docs/security.md#api-tokens: a verified token or session is kept briefly in each instance; a
// revocation, a sign-out, a deactivation or a new role takes effect at once, on the instance that made
// it and on every other.
const SECRET = "test-secret-0123456789abcdef";
const asBearer = (token: string) => new Headers({ authorization: `Bearer ${token}` });
const asCookie = (cookie: string) => new Headers({ cookie });
const PASSWORD = "a-good-password";

/** A browser session's Cookie header for `email`, as the sign-in form would get it. */
async function signIn(auth: Auth, email: string): Promise<string> {
  const signedIn = await auth.api.signInEmail({ body: { email, password: PASSWORD }, returnHeaders: true });
  return (signedIn.headers.get("set-cookie") ?? "")
    .split(/,(?=\s*[\w.-]+=)/)
    .map((part) => part.split(";")[0]?.trim())
    .join("; ");
}

/** An instance: its own connections to the database, its own auth and token cache. */
function instance(handle: DatabaseHandle): { auth: Auth; cache: IdentityCache } {
  const auth = createAuth(handle.db, SECRET);
  // Kept far longer than any wait here: only the change's notification can make an instance refuse.
  const cache = createIdentityCache(handle, { ttlMs: 60 * 60_000 });
  attachIdentityCache(auth, cache);
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
    password: PASSWORD,
    role,
  });
  const { token, summary } = await createToken(auth, db, { email, name: `agent ${counter}` });
  return { person, email, token, tokenId: summary.id };
}

describe(`the identity cache on one instance (${testDriverName})`, () => {
  let handle: DatabaseHandle;
  let one: { auth: Auth; cache: IdentityCache };
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

  it("answers a signed-in session from memory, and forgets it at sign-out, deactivation and a new role", async () => {
    const { email } = await personWithToken(one.auth, handle.db);
    const cookie = await signIn(one.auth, email);
    const first = await readIdentity(asCookie(cookie), one.auth);
    expect(first).toMatchObject({ email, via: "session", role: "approver" });
    const hitsBefore = one.cache.hits;
    expect(await readIdentity(asCookie(cookie), one.auth)).toEqual(first);
    expect(one.cache.hits).toBe(hitsBefore + 1);

    await setUserRole(one.auth, handle.db, null, { email, role: "viewer" });
    expect((await readIdentity(asCookie(cookie), one.auth))?.role).toBe("viewer");

    // better-auth's own sign-out deletes the session; the trigger announces it, and nothing here forgets it by hand.
    await one.auth.api.signOut({ headers: asCookie(cookie) });
    await eventually(async () => (await readIdentity(asCookie(cookie), one.auth)) === null, "the sign-out");

    const other = await personWithToken(one.auth, handle.db);
    const otherCookie = await signIn(one.auth, other.email);
    await readIdentity(asCookie(otherCookie), one.auth);
    await setUserActive(one.auth, handle.db, null, { email: other.email, isActive: false });
    expect(await readIdentity(asCookie(otherCookie), one.auth)).toBeNull();
  });

  it("forgets a session cut short by SQL by hand (the trigger announces it)", async () => {
    const { email } = await personWithToken(one.auth, handle.db);
    const cookie = await signIn(one.auth, email);
    const identity = await readIdentity(asCookie(cookie), one.auth);
    await handle.db.execute(
      sql`update "session" set expires_at = now() - interval '1 second' where id = ${identity?.sessionId ?? ""}`,
    );
    await eventually(async () => (await readIdentity(asCookie(cookie), one.auth)) === null, "the expiry");
  });

  it("never answers from memory past the token's or session's own expiry", async () => {
    let clock = Date.now();
    const cache = createIdentityCache(handle, { ttlMs: 60 * 60_000, now: () => clock });
    try {
      const expiring = async () => ({ identity: { userId: "u2" } as Identity, expiresAt: clock + 1_000 });
      // Kept once the cache listens: the second read is answered from memory.
      await eventually(async () => {
        await cache.read("expiring", expiring);
        return (await cache.read("expiring", async () => null)) !== null;
      }, "the cache to listen");
      clock += 1_001;
      expect(await cache.read("expiring", async () => null)).toBeNull();
    } finally {
      await cache.close();
    }
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
describe.runIf(process.env.TEST_DATABASE_URL)("the identity cache across instances (postgres)", () => {
  let first: DatabaseHandle & { url?: string };
  let second: DatabaseHandle;
  let a: { auth: Auth; cache: IdentityCache };
  let b: { auth: Auth; cache: IdentityCache };
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

  it("a session signed out on A is refused on B once B hears it", async () => {
    const { email } = await personWithToken(a.auth, first.db);
    const cookie = await signIn(a.auth, email);
    await readIdentity(asCookie(cookie), b.auth);
    const hits = b.cache.hits;
    expect(await readIdentity(asCookie(cookie), b.auth)).not.toBeNull();
    expect(b.cache.hits).toBe(hits + 1);
    await a.auth.api.signOut({ headers: asCookie(cookie) });
    await eventually(async () => (await readIdentity(asCookie(cookie), b.auth)) === null, "B's refusal");
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
