import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { DatabaseHandle } from "../db/client";
import { openTestDatabase } from "../db/testing/test-database";
import { listAccountEvents } from "../lib/server/auth/account-changes";
import type { TokenSummary } from "../lib/server/auth/accounts";
import {
  type AccountStore,
  AccountUsageError,
  manageAccounts,
  openDatabaseAccounts,
} from "./manage-accounts";

// `token revoke` resolves what it is given to one token id, among the owner's tokens when named.
function storeWith(tokens: TokenSummary[]) {
  const revoked: string[] = [];
  const store: AccountStore = {
    listUsers: async () => [],
    addUser: async () => {
      throw new Error("not used");
    },
    listTokens: async () => tokens,
    createToken: async () => "tp_x",
    revokeToken: async (id) => {
      revoked.push(id);
    },
    changeUser: async () => {
      throw new Error("not used");
    },
    removeUser: async () => {},
    changeOwnPassword: async () => {},
  };
  return { store, revoked };
}

const token = (id: string, name: string, ownerEmail: string): TokenSummary => ({
  id,
  name,
  ownerEmail,
  role: "viewer",
  isRoleUnknown: false,
  start: "tp_",
  createdAt: "2026-01-01T00:00:00.000Z",
  lastUsedAt: null,
});

describe("playground token revoke", () => {
  const tokens = [
    token("id1", "ci", "ada@example.com"),
    token("id2", "ci", "bob@example.com"),
    token("id3", "deploy", "ada@example.com"),
  ];

  it("revokes a name used once by its id", async () => {
    const { store, revoked } = storeWith(tokens);
    const output = await manageAccounts(store, { positionals: ["token", "revoke", "deploy"] });
    expect(revoked).toEqual(["id3"]);
    expect(output).toBe("revoked deploy (id3) of ada@example.com\n");
  });

  it("refuses a name two people use, naming them, and revokes nothing", async () => {
    const { store, revoked } = storeWith(tokens);
    await expect(manageAccounts(store, { positionals: ["token", "revoke", "ci"] })).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("--email"),
    });
    expect(revoked).toEqual([]);
  });

  it("resolves a name within the owner's tokens with --email, or takes an id", async () => {
    const { store, revoked } = storeWith(tokens);
    await manageAccounts(store, { positionals: ["token", "revoke", "ci"], email: "BOB@example.com" });
    await manageAccounts(store, { positionals: ["token", "revoke", "id1"] });
    expect(revoked).toEqual(["id2", "id1"]);
    await expect(
      manageAccounts(store, { positionals: ["token", "revoke", "deploy"], email: "bob@example.com" }),
    ).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("playground user|token|account: mistakes in the command line", () => {
  // Usage mistakes (the CLI exits 2), each naming what was given, and nothing reaches the store.
  const untouched: AccountStore = new Proxy({} as AccountStore, {
    get: (_target, method) => () => {
      throw new Error(`the store was asked to ${String(method)}`);
    },
  });
  const refused = (positionals: string[], options: { role?: string; name?: string } = {}) =>
    manageAccounts(untouched, { positionals, ...options });

  it("refuses arguments a command does not take, naming them, instead of ignoring them", async () => {
    await expect(refused(["user", "list", "extra"])).rejects.toBeInstanceOf(AccountUsageError);
    await expect(refused(["user", "list", "extra"])).rejects.toThrow(
      /^unexpected argument after user list: "extra"\nusage:\n {2}user add/,
    );
    await expect(refused(["user", "remove", "a@example.com", "b@example.com", "c"])).rejects.toThrow(
      'unexpected arguments after user remove a@example.com: "b@example.com" "c"',
    );
    await expect(refused(["token", "list", "mine"])).rejects.toThrow(
      'unexpected argument after token list: "mine"',
    );
    await expect(refused(["account", "password", "new"])).rejects.toThrow(
      'unexpected argument after account password: "new"',
    );
  });

  it("names an e-mail that is not one, and a role that is not one", async () => {
    await expect(refused(["user", "add", "a@b.c"], { role: "viewer" })).rejects.toBeInstanceOf(
      AccountUsageError,
    );
    await expect(refused(["user", "add", "a@b.c"], { role: "viewer" })).rejects.toThrow(
      'user add: "a@b.c" is not an email address',
    );
    await expect(refused(["user", "add", "ada@example.com"], { role: "root" })).rejects.toThrow(
      '--role must be one of viewer, operator, approver, admin; got "root"',
    );
    await expect(refused(["user", "add", "ada@example.com"])).rejects.toThrow(
      "--role is required: one of viewer, operator, approver, admin",
    );
    await expect(
      refused(["token", "create", "ada@example.com"], { name: "ci", role: "root" }),
    ).rejects.toThrow(/--role must be one of .*agent.*; got "root"/);
  });
});

describe("playground user role|deactivate|activate|password|remove, on the database", () => {
  let handle: DatabaseHandle;
  let accounts: AccountStore;
  beforeAll(async () => {
    handle = await openTestDatabase();
    accounts = await openDatabaseAccounts(handle);
  });
  afterAll(async () => {
    await handle.close();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  const run = (...positionals: string[]) => manageAccounts(accounts, { positionals });

  it("changes, deactivates, resets and removes, each audited, and never leaves no admin", async () => {
    vi.stubEnv("PLAYGROUND_NEW_PASSWORD", "cli-password-1");
    await manageAccounts(accounts, { positionals: ["user", "add", "boss@example.com"], role: "admin" });
    await manageAccounts(accounts, { positionals: ["user", "add", "sam@example.com"], role: "viewer" });

    await expect(
      manageAccounts(accounts, { positionals: ["user", "role", "boss@example.com"], role: "viewer" }),
    ).rejects.toMatchObject({ code: "forbidden", message: expect.stringContaining("last administrator") });
    await expect(run("user", "remove", "boss@example.com")).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      manageAccounts(accounts, { positionals: ["user", "role", "sam@example.com"], role: "boss" }),
    ).rejects.toThrow('--role must be one of viewer, operator, approver, admin; got "boss"');

    const promoted = JSON.parse(
      await manageAccounts(accounts, { positionals: ["user", "role", "sam@example.com"], role: "operator" }),
    );
    expect(promoted).toMatchObject({ email: "sam@example.com", role: "operator", isActive: true });
    expect(JSON.parse(await run("user", "deactivate", "sam@example.com"))).toMatchObject({ isActive: false });
    expect(JSON.parse(await run("user", "activate", "sam@example.com"))).toMatchObject({ isActive: true });

    vi.stubEnv("PLAYGROUND_NEW_PASSWORD", "");
    await expect(run("user", "password", "sam@example.com")).rejects.toMatchObject({
      message: expect.stringContaining("PLAYGROUND_NEW_PASSWORD"),
    });
    vi.stubEnv("PLAYGROUND_NEW_PASSWORD", "another-password-1");
    expect(await run("user", "password", "sam@example.com")).toContain("sessions ended");
    expect(await run("user", "remove", "sam@example.com")).toContain("removed sam@example.com");
    expect(JSON.parse(await run("user", "list")).map((row: { email: string }) => row.email)).toEqual([
      "boss@example.com",
    ]);

    const events = await listAccountEvents(handle.db, { limit: 100 });
    expect(events.map((event) => [event.kind, event.subjectEmail, event.actorEmail])).toEqual([
      ["user_removed", "sam@example.com", null],
      ["password_reset", "sam@example.com", null],
      ["user_reactivated", "sam@example.com", null],
      ["user_deactivated", "sam@example.com", null],
      ["role_changed", "sam@example.com", null],
      ["user_added", "sam@example.com", null],
      ["user_added", "boss@example.com", null],
    ]);
  });

  it("changes one's own password only with --server (the token's owner)", async () => {
    vi.stubEnv("PLAYGROUND_CURRENT_PASSWORD", "cli-password-1");
    vi.stubEnv("PLAYGROUND_NEW_PASSWORD", "another-password-2");
    await expect(run("account", "password")).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("--server"),
    });
  });
});
