// `playground user …` and `playground token …`: people and API tokens, managed
// either against the configured database directly (no sign-in: whoever can reach
// the database already administers the app) or, with --server, through the
// running app's HTTP API as the admin whose token is in PLAYGROUND_TOKEN.
import type { DatabaseHandle } from "../db/client";
import {
  AccountError,
  createToken,
  createUser,
  findTokenToRevoke,
  listTokens,
  listUsers,
  revokeToken,
  type TokenSummary,
  type UserSummary,
} from "../lib/server/auth/accounts";
import { createAuth, readSecret } from "../lib/server/auth/auth";
import { isRole, ROLES, type Role } from "../lib/server/auth/roles";
import { ACCOUNT_USAGE } from "./account-usage";
import type { ServerClient } from "./server-client";

export interface AccountArguments {
  positionals: string[];
  role?: string;
  name?: string;
  passwordEnv?: string;
  /** `token revoke <name> --email <owner>`: whose token the name designates. */
  email?: string;
}

/** Where the account commands act: the database itself, or a running app's API. */
export interface AccountStore {
  listUsers(): Promise<UserSummary[]>;
  addUser(input: { email: string; name: string; password: string; role: Role }): Promise<UserSummary>;
  listTokens(): Promise<TokenSummary[]>;
  /** Returns the token itself (shown this once). */
  createToken(input: { email: string; name: string; role?: Role }): Promise<string>;
  /** Revokes the token with this id (never by name: two people may name theirs alike). */
  revokeToken(id: string): Promise<void>;
}

export async function openDatabaseAccounts(handle: DatabaseHandle): Promise<AccountStore> {
  const auth = createAuth(handle.db, await readSecret(handle.db));
  return {
    listUsers: () => listUsers(handle.db),
    addUser: (input) => createUser(auth, input),
    listTokens: () => listTokens(handle.db),
    createToken: async (input) => (await createToken(auth, handle.db, input)).token,
    revokeToken: async (id) => {
      await revokeToken(handle.db, id);
    },
  };
}

/** The same commands through the app's account routes (`/api/users`, `/api/tokens`), as an admin. */
export function serverAccounts(server: ServerClient): AccountStore {
  return {
    listUsers: () => server.request("GET", "/api/users"),
    addUser: (input) => server.request("POST", "/api/users", input),
    listTokens: () => server.request("GET", "/api/tokens"),
    createToken: async (input) =>
      (await server.request<{ token: string }>("POST", "/api/tokens", input)).token,
    revokeToken: async (id) => {
      await server.request("DELETE", `/api/tokens/${encodeURIComponent(id)}`);
    },
  };
}

/** Runs one account command; returns the text for stdout, or throws an AccountError or a usage Error. */
export async function manageAccounts(accounts: AccountStore, args: AccountArguments): Promise<string> {
  const [noun, verb, subject] = args.positionals;
  const usage = () => new Error(`usage:\n${ACCOUNT_USAGE}`);
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  if (noun === "user" && verb === "list") return json(await accounts.listUsers());
  if (noun === "user" && verb === "add" && subject) {
    if (!isRole(args.role))
      throw new AccountError("invalid_request", `--role must be one of ${ROLES.join(", ")}.`);
    const variable = args.passwordEnv ?? "PLAYGROUND_NEW_PASSWORD";
    const password = process.env[variable];
    if (!password) {
      throw new AccountError(
        "invalid_request",
        `Put the new user's password in ${variable} (never on the command line).`,
      );
    }
    const name = args.name ?? subject.split("@")[0] ?? subject;
    return json(await accounts.addUser({ email: subject, name, password, role: args.role }));
  }
  if (noun === "token" && verb === "list") return json(await accounts.listTokens());
  if (noun === "token" && verb === "create" && subject && args.name) {
    if (args.role !== undefined && !isRole(args.role)) {
      throw new AccountError("invalid_request", `--role must be one of ${ROLES.join(", ")}.`);
    }
    const token = await accounts.createToken({
      email: subject,
      name: args.name,
      role: isRole(args.role) ? args.role : undefined,
    });
    return `${token}\n`;
  }
  if (noun === "token" && verb === "revoke" && subject) {
    // A name is resolved to one id among the owner's tokens (or everyone's, if it is unique there).
    const token = findTokenToRevoke(await accounts.listTokens(), subject, args.email);
    await accounts.revokeToken(token.id);
    return `revoked ${token.name} (${token.id}) of ${token.ownerEmail}\n`;
  }
  throw usage();
}
