import { describe, expect, it } from "vitest";
import type { TokenSummary } from "../lib/server/auth/accounts";
import { type AccountStore, manageAccounts } from "./manage-accounts";

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
