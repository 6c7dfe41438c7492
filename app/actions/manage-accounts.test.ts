import { beforeAll, describe, expect, it, vi } from "vitest";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { createTestAccounts, type TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// Outside Next: the request's headers are what the test says, and there is no page cache to refresh.
const requestHeaders = vi.hoisted(() => ({ current: new Headers() }));
vi.mock("next/headers", () => ({ headers: async () => requestHeaders.current }));
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

let accounts: Record<Role, TestAccount>;
let actions: typeof import("./manage-accounts");
const actAs = (role: Role) => {
  requestHeaders.current = new Headers({ origin: "http://test", ...accounts[role].headers });
};

const setup = setUpRouteTests();

beforeAll(async () => {
  accounts = setup.accounts;
  actions = await import("./manage-accounts");
});

describe("API tokens from the pages", () => {
  it("lets anyone create and revoke their own tokens, no higher than their role, and no one else's", async () => {
    actAs("operator");
    const own = await actions.createTokenAction({
      email: accounts.operator.email,
      name: "my-script",
      role: "operator",
    });
    expect(own).toMatchObject({ ok: true, data: { token: expect.stringMatching(/^tp_/) } });
    expect(
      await actions.createTokenAction({ email: accounts.operator.email, name: "too-high", role: "approver" }),
    ).toMatchObject({ ok: false, error: { code: "forbidden", message: expect.stringContaining("at most") } });
    expect(
      await actions.createTokenAction({ email: accounts.viewer.email, name: "for-someone", role: "viewer" }),
    ).toMatchObject({ ok: false, error: { code: "forbidden", status: 403 } });

    if (!own.ok) throw new Error("not created");
    actAs("viewer");
    expect(await actions.revokeTokenAction({ id: own.data.summary.id })).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
    actAs("operator");
    expect(await actions.revokeTokenAction({ id: own.data.summary.id })).toMatchObject({ ok: true });
  });

  it("makes an agent token only for someone who may start runs: never a viewer's, from /account, /admin or the CLI", async () => {
    const refusal = {
      ok: false,
      error: { code: "forbidden", message: expect.stringMatching(/must be an operator or above/) },
    };
    actAs("viewer");
    expect(
      await actions.createTokenAction({ email: accounts.viewer.email, name: "my-agent", role: "agent" }),
    ).toMatchObject(refusal);
    actAs("admin");
    expect(
      await actions.createTokenAction({ email: accounts.viewer.email, name: "their-agent", role: "agent" }),
    ).toMatchObject(refusal);
    // The CLI and POST /api/tokens make tokens through the same createToken, with no creator's role for the CLI.
    const { createToken } = await import("@/lib/server/auth/accounts");
    const { getAuth } = await import("@/lib/server/server-context");
    await expect(
      createToken(await getAuth(), setup.handle.db, {
        email: accounts.viewer.email,
        name: "cli",
        role: "agent",
      }),
    ).rejects.toThrow(
      `An agent token acts for its owner, who must be an operator or above to open agent runs; ${accounts.viewer.email} is viewer.`,
    );

    // Nor an operator's token limited to viewing: the agent token it made would start runs.
    const limited = await createToken(await getAuth(), setup.handle.db, {
      email: accounts.operator.email,
      name: "viewing only",
      role: "viewer",
    });
    requestHeaders.current = new Headers({ origin: "http://test", authorization: `Bearer ${limited.token}` });
    expect(
      await actions.createTokenAction({ email: accounts.operator.email, name: "escalated", role: "agent" }),
    ).toMatchObject({
      ok: false,
      error: { code: "forbidden", message: expect.stringMatching(/you act as viewer/) },
    });

    actAs("operator");
    expect(
      await actions.createTokenAction({ email: accounts.operator.email, name: "my-agent", role: "agent" }),
    ).toMatchObject({ ok: true, data: { summary: { role: "agent" } } });
  });

  it("keeps adding users to admins", async () => {
    actAs("approver");
    const refused = await actions.addUserAction({
      email: "new@test.example",
      name: "New",
      role: "viewer",
      password: "new-password-1",
    });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: "forbidden", message: expect.stringContaining("admin") },
    });
    actAs("admin");
    expect(
      await actions.addUserAction({
        email: "new@test.example",
        name: "New",
        role: "viewer",
        password: "new-password-1",
      }),
    ).toMatchObject({ ok: true, data: { email: "new@test.example", role: "viewer" } });
  });

  it("refuses an e-mail an account already has, in any letter case, as one conflict naming that account", async () => {
    actAs("admin");
    const stored = accounts.viewer.email;
    const add = (email: string) =>
      actions.addUserAction({ email, name: "Twin", role: "viewer", password: "new-password-1" });
    const conflict = (message: string) => ({
      ok: false,
      error: { code: "account_exists", status: 409, message },
    });
    expect(await add(stored)).toMatchObject(conflict(`${stored} already has an account.`));
    const shouted = stored.toUpperCase();
    expect(await add(shouted)).toMatchObject(
      conflict(
        `${stored} already has an account (${shouted} is the same address: letter case does not count).`,
      ),
    );
    // The HTTP API (and so the CLI with --server) answers the same.
    const { POST } = await import("@/app/api/users/route");
    const response = await POST(
      new Request("http://test/api/users", {
        method: "POST",
        headers: { ...accounts.admin.headers, "content-type": "application/json" },
        body: JSON.stringify({ email: shouted, name: "Twin", role: "viewer", password: "new-password-1" }),
      }),
    );
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      error: { code: "account_exists", message: expect.stringContaining(stored) },
    });
    // Without the account-changes lock (the first admin, test accounts) better-auth's own check says the same.
    const { createUser } = await import("@/lib/server/auth/accounts");
    const { getAuth } = await import("@/lib/server/server-context");
    await expect(
      createUser(await getAuth(), {
        email: shouted,
        name: "Twin",
        role: "viewer",
        password: "new-password-1",
      }),
    ).rejects.toMatchObject({
      code: "account_exists",
      message: expect.stringContaining(`${stored} already has an account`),
    });
  });
});

describe("account changes from the admin page", () => {
  it("are for admins only, apply one change each, and are audited with the admin's e-mail", async () => {
    const { viewer: target } = await createTestAccounts(["viewer"]);
    actAs("approver");
    expect(await actions.changeUserAction({ email: target.email, role: "operator" })).toMatchObject({
      ok: false,
      error: { code: "forbidden", status: 403 },
    });
    expect(await actions.removeUserAction({ email: target.email })).toMatchObject({
      ok: false,
      error: { code: "forbidden" },
    });
    actAs("admin");
    expect(await actions.changeUserAction({ email: target.email, role: "operator" })).toMatchObject({
      ok: true,
      data: { role: "operator" },
    });
    expect(await actions.changeUserAction({ email: target.email, isActive: false })).toMatchObject({
      ok: true,
      data: { isActive: false },
    });
    expect(await actions.changeUserAction({ email: target.email, password: "short" })).toMatchObject({
      ok: false,
      error: { code: "invalid_request" },
    });
    expect(await actions.removeUserAction({ email: target.email })).toMatchObject({ ok: true });
    const { listAccountEvents } = await import("@/lib/server/auth/account-changes");
    const { getDatabase } = await import("@/lib/server/database");
    const events = (await listAccountEvents((await getDatabase()).db, { limit: 100 })).filter(
      (event) => event.subjectEmail === target.email,
    );
    expect(events.map((event) => [event.kind, event.actorEmail])).toEqual([
      ["user_removed", accounts.admin.email],
      ["user_deactivated", accounts.admin.email],
      ["role_changed", accounts.admin.email],
    ]);
  });

  it("never lets a token change its owner's password: only a signed-in person", async () => {
    actAs("viewer");
    expect(
      await actions.changeOwnPasswordAction({
        currentPassword: "test-password-1",
        newPassword: "new-password-1",
      }),
    ).toMatchObject({ ok: false, error: { code: "forbidden", message: expect.stringContaining("Sign in") } });
  });
});
