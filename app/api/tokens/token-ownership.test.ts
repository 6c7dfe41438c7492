import { beforeAll, describe, expect, it, vi } from "vitest";
import { createToken, listTokens } from "@/lib/server/auth/accounts";
import { getDatabase } from "@/lib/server/database";
import { getAuth } from "@/lib/server/server-context";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// Tokens are made and revoked only through the app's own code paths, by id, by their owner or an admin.
const requestHeaders = vi.hoisted(() => ({ current: new Headers() }));
vi.mock("next/headers", () => ({ headers: async () => requestHeaders.current }));
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

let accounts: Record<Role, TestAccount>;
let actions: typeof import("@/app/actions/manage-accounts");
const actAs = (role: Role) => {
  requestHeaders.current = new Headers({ origin: "http://test", ...accounts[role].headers });
};

const setup = setUpRouteTests();

beforeAll(async () => {
  accounts = setup.accounts;
  actions = await import("@/app/actions/manage-accounts");
});

/** A browser session's cookie for `email`, as the sign-in form would get it. */
async function signIn(email: string): Promise<string> {
  const auth = await getAuth();
  const signedIn = await auth.api.signInEmail({
    body: { email, password: "test-password-1" },
    returnHeaders: true,
  });
  return (signedIn.headers.get("set-cookie") ?? "")
    .split(/,(?=\s*[\w.-]+=)/)
    .map((part) => part.split(";")[0]?.trim())
    .join("; ");
}

async function tokensOf(email: string) {
  return (await listTokens((await getDatabase()).db)).filter((token) => token.ownerEmail === email);
}

describe("better-auth's own API-key endpoints", () => {
  it("are not reachable over HTTP, in any spelling of their path", async () => {
    const { GET, POST } = await import("../auth/[...all]/route");
    const cookie = await signIn(accounts.viewer.email);
    const headers = { cookie, origin: "http://test", host: "test", "content-type": "application/json" };
    const before = (await tokensOf(accounts.viewer.email)).length;
    const posts = [
      "/api/auth/api-key/create",
      "/api/auth/api-key/create/",
      "/api/auth//api-key/create",
      "/api/auth/api-key//create",
      "/api/auth/API-KEY/create",
      "/api/auth/api-key%2Fcreate",
      "/api/auth/api-key/update",
      "/api/auth/api-key/delete",
    ];
    for (const path of posts) {
      const response = await POST(
        new Request(`http://test${path}`, {
          method: "POST",
          headers,
          body: JSON.stringify({ name: "admin-ci", keyId: "x", metadata: { role: "admin" } }),
        }),
      );
      expect(response.status, path).toBe(404);
    }
    for (const path of ["/api/auth/api-key/list", "/api/auth/api-key/get?id=x"]) {
      const response = await GET(new Request(`http://test${path}`, { headers }));
      expect(response.status, path).toBe(404);
    }
    expect(await tokensOf(accounts.viewer.email)).toHaveLength(before);
  });

  it("leave sign-in working", async () => {
    const { POST } = await import("../auth/[...all]/route");
    const response = await POST(
      new Request("http://test/api/auth/sign-in/email", {
        method: "POST",
        headers: { origin: "http://test", host: "test", "content-type": "application/json" },
        body: JSON.stringify({ email: accounts.viewer.email, password: "test-password-1" }),
      }),
    );
    expect(response.status).toBe(200);
  });
});

describe("token names", () => {
  it("are unique per owner: two people may both have a token named ci, one person only one", async () => {
    const auth = await getAuth();
    const { db } = await getDatabase();
    await createToken(auth, db, { email: accounts.operator.email, name: "ci" });
    await createToken(auth, db, { email: accounts.approver.email, name: "ci" });
    await expect(createToken(auth, db, { email: accounts.operator.email, name: "ci" })).rejects.toMatchObject(
      {
        code: "invalid_request",
        message: expect.stringContaining(`${accounts.operator.email} already has a token named "ci"`),
      },
    );
    expect((await tokensOf(accounts.operator.email)).filter((token) => token.name === "ci")).toHaveLength(1);
  });

  it("cannot be probed: a name another person uses is free for you", async () => {
    actAs("admin");
    expect(await actions.createTokenAction({ email: accounts.admin.email, name: "probe-me" })).toMatchObject({
      ok: true,
    });
    actAs("viewer");
    expect(
      await actions.createTokenAction({ email: accounts.viewer.email, name: "probe-me", role: "viewer" }),
    ).toMatchObject({ ok: true });
  });

  it("are unique per owner even when created at once", async () => {
    const auth = await getAuth();
    const { db } = await getDatabase();
    const attempts = await Promise.allSettled(
      Array.from({ length: 5 }, () => createToken(auth, db, { email: accounts.viewer.email, name: "race" })),
    );
    expect(attempts.filter((attempt) => attempt.status === "fulfilled")).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.status === "rejected") expect(attempt.reason).toMatchObject({ code: "invalid_request" });
    }
  });
});

describe("revoking a token", () => {
  it("takes its id, and a viewer cannot revoke anyone else's (not even one named like theirs)", async () => {
    const auth = await getAuth();
    const { db } = await getDatabase();
    const adminToken = await createToken(auth, db, { email: accounts.admin.email, name: "shared-name" });
    const viewerToken = await createToken(auth, db, { email: accounts.viewer.email, name: "shared-name" });
    actAs("viewer");
    expect(await actions.revokeTokenAction({ id: adminToken.summary.id })).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
    expect(await actions.revokeTokenAction({ id: viewerToken.summary.id })).toMatchObject({ ok: true });
    const adminNames = (await tokensOf(accounts.admin.email)).map((token) => token.id);
    expect(adminNames).toContain(adminToken.summary.id);
    expect((await tokensOf(accounts.viewer.email)).map((token) => token.id)).not.toContain(
      viewerToken.summary.id,
    );
  });

  it("over HTTP is DELETE /api/tokens/<id> (admins), and removes that one token only", async () => {
    const auth = await getAuth();
    const { db } = await getDatabase();
    const first = await createToken(auth, db, { email: accounts.operator.email, name: "deploy" });
    const second = await createToken(auth, db, { email: accounts.approver.email, name: "deploy" });
    const { DELETE } = await import("./[id]/route");
    const call = (id: string, headers: Record<string, string>) =>
      DELETE(new Request(`http://test/api/tokens/${id}`, { method: "DELETE", headers }), {
        params: Promise.resolve({ id }),
      });
    expect((await call(first.summary.id, accounts.operator.headers)).status).toBe(403);
    const revoked = await call(first.summary.id, accounts.admin.headers);
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ revoked: first.summary.id });
    expect((await call(first.summary.id, accounts.admin.headers)).status).toBe(404);
    const remaining = (await listTokens(db)).map((token) => token.id);
    expect(remaining).toContain(second.summary.id);
    expect(remaining).not.toContain(first.summary.id);
  });
});
