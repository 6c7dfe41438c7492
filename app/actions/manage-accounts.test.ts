import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Role } from "@/lib/server/auth/roles";
import { installProcessTestDatabase } from "@/lib/server/testing/process-test-database";
import { createTestAccounts, type TestAccount } from "@/lib/server/testing/test-accounts";

// Outside Next: the request's headers are what the test says, and there is no page cache to refresh.
const requestHeaders = vi.hoisted(() => ({ current: new Headers() }));
vi.mock("next/headers", () => ({ headers: async () => requestHeaders.current }));
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

let uninstall = async () => {};
let accounts: Record<Role, TestAccount>;
let actions: typeof import("./manage-accounts");
const actAs = (role: Role) => {
  requestHeaders.current = new Headers({ origin: "http://test", ...accounts[role].headers });
};

beforeAll(async () => {
  ({ uninstall } = await installProcessTestDatabase());
  accounts = await createTestAccounts();
  actions = await import("./manage-accounts");
});
afterAll(async () => {
  await uninstall();
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
});
