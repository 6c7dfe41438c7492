import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/db/client";
import { account, accountEvents, session, user } from "@/db/schema";
import { openTestDatabase, testDriverName } from "@/db/testing/test-database";
import {
  addUser,
  changeOwnPassword,
  listAccountEvents,
  removeUser,
  resetPassword,
  setUserActive,
  setUserRole,
} from "./account-changes";
import { createToken, listTokens, listUsers } from "./accounts";
import { type Auth, createAuth } from "./auth";
import { readIdentity } from "./identity";

// The rules of account changes: never no admin, deactivation stops sessions and tokens at once,
// one's own password needs the current one, and every change leaves its audit row.
let handle: DatabaseHandle;
let auth: Auth;
const password = "a-good-password";

beforeAll(async () => {
  handle = await openTestDatabase();
  auth = createAuth(handle.db, "test-secret-0123456789abcdef");
});
afterAll(async () => {
  await handle.close();
});

let counter = 0;
async function person(role: "viewer" | "operator" | "approver" | "admin") {
  counter += 1;
  return addUser(auth, handle.db, null, {
    email: `person${counter}@example.com`,
    name: `Person ${counter}`,
    password,
    role,
  });
}

async function signIn(email: string, withPassword = password) {
  return auth.api.signInEmail({ body: { email, password: withPassword } });
}

async function sessionsOf(userId: string) {
  return handle.db.select().from(session).where(eq(session.userId, userId));
}

async function eventsOf(email: string) {
  return (await listAccountEvents(handle.db, { limit: 1000 })).filter(
    (event) => event.subjectEmail === email,
  );
}

const asBearer = (token: string) => new Headers({ authorization: `Bearer ${token}` });

describe(`account changes (${testDriverName})`, () => {
  it("never demotes, deactivates or removes the last active admin", async () => {
    // The test database is shared by this file's tests: make this admin the only active one.
    await handle.db.execute(sql`update "user" set banned = true where role = 'admin'`);
    const only = await person("admin");
    await expect(
      setUserRole(auth, handle.db, null, { email: only.email, role: "viewer" }),
    ).rejects.toMatchObject({ code: "forbidden", message: expect.stringContaining("last administrator") });
    await expect(
      setUserActive(auth, handle.db, null, { email: only.email, isActive: false }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(removeUser(auth, handle.db, null, { email: only.email })).rejects.toMatchObject({
      code: "forbidden",
    });
    expect((await listUsers(handle.db)).find((row) => row.id === only.id)).toMatchObject({
      role: "admin",
      isActive: true,
    });
    // With a second admin, the first may step down.
    const second = await person("admin");
    const actor = { id: second.id, email: second.email };
    expect(await setUserRole(auth, handle.db, actor, { email: only.email, role: "approver" })).toMatchObject({
      role: "approver",
    });
    // Now `second` is the only one, and cannot demote themselves either.
    await expect(
      setUserRole(auth, handle.db, actor, { email: second.email, role: "viewer" }),
    ).rejects.toMatchObject({ code: "forbidden" });
    expect(await eventsOf(only.email)).toEqual([
      expect.objectContaining({ kind: "role_changed", actorEmail: second.email, detail: "admin → approver" }),
      expect.objectContaining({ kind: "user_added", actorEmail: null }),
    ]);
  });

  it("two admins demoting each other at once leave one admin", async () => {
    await handle.db.execute(sql`update "user" set banned = true where role = 'admin'`);
    const [first, second] = [await person("admin"), await person("admin")];
    const results = await Promise.allSettled([
      setUserRole(
        auth,
        handle.db,
        { id: first.id, email: first.email },
        { email: second.email, role: "viewer" },
      ),
      setUserRole(
        auth,
        handle.db,
        { id: second.id, email: second.email },
        { email: first.email, role: "viewer" },
      ),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    const admins = (await listUsers(handle.db)).filter((row) => row.role === "admin" && row.isActive);
    expect(admins).toHaveLength(1);
  });

  it("keeps an e-mail as better-auth stores it (lower-case) and signs its person in whatever the case", async () => {
    const added = await addUser(auth, handle.db, null, {
      email: "Grace.Hopper@Example.com",
      name: "Grace",
      password,
      role: "viewer",
    });
    expect(added.email).toBe("grace.hopper@example.com");
    for (const email of [
      "grace.hopper@example.com",
      "Grace.Hopper@Example.com",
      "GRACE.HOPPER@EXAMPLE.COM",
    ]) {
      await expect(signIn(email)).resolves.toMatchObject({ user: { id: added.id } });
    }
    await expect(
      addUser(auth, handle.db, null, {
        email: "GRACE.hopper@example.com",
        name: "Other",
        password,
        role: "viewer",
      }),
    ).rejects.toMatchObject({
      code: "account_exists",
      message: expect.stringMatching(/^grace\.hopper@example\.com already has/),
    });
    const rows = await handle.db
      .select({ email: user.email })
      .from(user)
      .where(sql`lower(${user.email}) = 'grace.hopper@example.com'`);
    expect(rows).toEqual([{ email: "grace.hopper@example.com" }]);
    expect((await eventsOf("grace.hopper@example.com")).map((event) => event.kind)).toEqual(["user_added"]);
  });

  it("refuses to let an admin deactivate or remove themself", async () => {
    const admin = await person("admin");
    await person("admin");
    const actor = { id: admin.id, email: admin.email };
    await expect(
      setUserActive(auth, handle.db, actor, { email: admin.email, isActive: false }),
    ).rejects.toMatchObject({ code: "forbidden", message: expect.stringContaining("yourself") });
    await expect(removeUser(auth, handle.db, actor, { email: admin.email })).rejects.toMatchObject({
      code: "forbidden",
    });
  });

  it("gives a person no agent role, adding or changing them: that role is an API token's", async () => {
    const admin = await person("admin");
    const viewer = await person("viewer");
    const actor = { id: admin.id, email: admin.email };
    const refusal = { code: "invalid_request", message: expect.stringContaining("agent is an API token's") };
    await expect(
      addUser(auth, handle.db, actor, { email: "bot@example.com", name: "Bot", password, role: "agent" }),
    ).rejects.toMatchObject(refusal);
    await expect(
      setUserRole(auth, handle.db, actor, { email: viewer.email, role: "agent" }),
    ).rejects.toMatchObject(refusal);
    expect((await listUsers(handle.db)).find((user) => user.email === viewer.email)?.role).toBe("viewer");
    expect((await listUsers(handle.db)).some((user) => user.email === "bot@example.com")).toBe(false);
  });

  it("deactivating ends the person's sessions and their tokens stop at once; reactivating restores the tokens", async () => {
    const admin = await person("admin");
    const someone = await person("operator");
    await signIn(someone.email);
    const { token } = await createToken(auth, handle.db, { email: someone.email, name: "ci" });
    expect(await readIdentity(asBearer(token), auth)).toMatchObject({ email: someone.email });
    expect(await sessionsOf(someone.id)).toHaveLength(1);

    const actor = { id: admin.id, email: admin.email };
    expect(
      await setUserActive(auth, handle.db, actor, { email: someone.email, isActive: false }),
    ).toMatchObject({
      isActive: false,
    });
    expect(await readIdentity(asBearer(token), auth)).toBeNull();
    expect(await sessionsOf(someone.id)).toHaveLength(0);
    await expect(signIn(someone.email)).rejects.toBeDefined();

    await setUserActive(auth, handle.db, actor, { email: someone.email, isActive: true });
    expect(await readIdentity(asBearer(token), auth)).toMatchObject({ email: someone.email });
    expect((await eventsOf(someone.email)).map((event) => event.kind)).toEqual([
      "user_reactivated",
      "user_deactivated",
      "user_added",
    ]);
  });

  it("removing a person removes their tokens and keeps their audit rows, e-mail included", async () => {
    const admin = await person("admin");
    const someone = await person("approver");
    await createToken(auth, handle.db, { email: someone.email, name: "laptop" });
    await removeUser(auth, handle.db, { id: admin.id, email: admin.email }, { email: someone.email });
    expect((await listUsers(handle.db)).some((row) => row.id === someone.id)).toBe(false);
    expect((await listTokens(handle.db)).some((token) => token.ownerEmail === someone.email)).toBe(false);
    expect(await eventsOf(someone.email)).toEqual([
      expect.objectContaining({ kind: "user_removed", actorEmail: admin.email, detail: "was approver" }),
      expect.objectContaining({ kind: "user_added" }),
    ]);
    await expect(removeUser(auth, handle.db, null, { email: someone.email })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("changing one's own password needs the current one, and ends one's other sessions only", async () => {
    const someone = await person("viewer");
    const kept = await signIn(someone.email);
    await signIn(someone.email);
    const [keptSession] = await handle.db.select().from(session).where(eq(session.token, kept.token));
    if (!keptSession) throw new Error("no session");
    const self = { userId: someone.id, email: someone.email, sessionId: keptSession.id };

    await expect(
      changeOwnPassword(auth, handle.db, self, {
        currentPassword: "not-the-password",
        newPassword: "another-password",
      }),
    ).rejects.toMatchObject({ code: "forbidden", message: expect.stringContaining("current password") });
    expect(await sessionsOf(someone.id)).toHaveLength(2);
    await expect(
      changeOwnPassword(auth, handle.db, self, { currentPassword: password, newPassword: "short" }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    // The same password again changes nothing: no new hash, no session ended, no audit row.
    const [hashBefore] = await handle.db
      .select({ password: account.password })
      .from(account)
      .where(eq(account.userId, someone.id));
    await expect(
      changeOwnPassword(auth, handle.db, self, { currentPassword: password, newPassword: password }),
    ).rejects.toMatchObject({
      code: "invalid_request",
      message: "The new password is the same as the current one: choose a different password.",
    });
    expect(
      await handle.db
        .select({ password: account.password })
        .from(account)
        .where(eq(account.userId, someone.id)),
    ).toEqual([hashBefore]);
    expect(await sessionsOf(someone.id)).toHaveLength(2);
    expect((await eventsOf(someone.email)).map((event) => event.kind)).toEqual(["user_added"]);

    await changeOwnPassword(auth, handle.db, self, {
      currentPassword: password,
      newPassword: "another-password",
    });
    expect((await sessionsOf(someone.id)).map((row) => row.id)).toEqual([keptSession.id]);
    await expect(signIn(someone.email)).rejects.toBeDefined();
    expect(await signIn(someone.email, "another-password")).toMatchObject({ token: expect.any(String) });
    expect((await eventsOf(someone.email))[0]).toMatchObject({
      kind: "password_changed",
      actorEmail: someone.email,
    });
  });

  it("an admin's reset sets the password and ends the person's sessions", async () => {
    const admin = await person("admin");
    const someone = await person("viewer");
    await signIn(someone.email);
    await resetPassword(
      auth,
      handle.db,
      { id: admin.id, email: admin.email },
      {
        email: someone.email,
        password: "reset-by-admin",
      },
    );
    expect(await sessionsOf(someone.id)).toHaveLength(0);
    expect(await signIn(someone.email, "reset-by-admin")).toMatchObject({ token: expect.any(String) });
    const [event] = await eventsOf(someone.email);
    expect(event).toMatchObject({ kind: "password_reset", actorEmail: admin.email });
    expect(JSON.stringify(event)).not.toContain("reset-by-admin");
  });

  it("keeps the accounts audit append-only", async () => {
    await person("viewer");
    await expect(handle.db.update(accountEvents).set({ detail: "rewritten" })).rejects.toThrow();
    await expect(handle.db.delete(accountEvents)).rejects.toThrow();
    expect(await handle.db.select().from(user).limit(1)).toHaveLength(1);
  });
});

describe(`the approvals audit after a removal (${testDriverName})`, () => {
  it("still names a removed decider by the e-mail they had", async () => {
    const { listAuditRows } = await import("@/db/repositories/audit-queries");
    const { approvals, runs } = await import("@/db/schema");
    const someone = await person("approver");
    const runId = "00000000-0000-4000-8000-00000000a0d1";
    await handle.db.insert(runs).values({
      id: runId,
      name: "audited run",
      status: "COMPLETED",
      scenario: {},
      limits: {},
    } as typeof runs.$inferInsert);
    await handle.db.insert(approvals).values({
      runId,
      turnDigest: "digest",
      approve: true,
      actor: "Someone",
      actorId: someone.id,
    });
    await removeUser(auth, handle.db, null, { email: someone.email });
    const rows = await listAuditRows(handle.db, { limit: 10, filter: { actor: someone.email } });
    expect(rows).toEqual([expect.objectContaining({ actorId: someone.id, actorEmail: someone.email })]);
  });
});
