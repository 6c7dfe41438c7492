// `playground user …` and `playground token …`: people and API tokens, managed
// either against the configured database directly (no sign-in: whoever can reach
// the database already administers the app) or, with --server, through the
// running app's HTTP API as the admin whose token is in PLAYGROUND_TOKEN.
import type { DatabaseHandle } from "../db/client";
import { userEmailSchema } from "../lib/http/account-schemas";
import { addUser, changeUser, removeUser } from "../lib/server/auth/account-changes";
import {
  AccountError,
  createToken,
  findTokenToRevoke,
  listTokens,
  listUsers,
  revokeToken,
  type TokenSummary,
  type UserSummary,
} from "../lib/server/auth/accounts";
import { createAuth, readSecret } from "../lib/server/auth/auth";
import { isRole, PERSON_ROLES, ROLES, type Role } from "../lib/wire/roles";
import { ACCOUNT_USAGE, accountUsageOf } from "./account-usage";
import { describeExtraArguments } from "./extra-arguments";
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
  /** One audited change: a role, deactivation or reactivation, or a new password. */
  changeUser(
    input: { email: string } & ({ role: Role } | { isActive: boolean } | { password: string }),
  ): Promise<UserSummary>;
  /** Removes a person with their sessions and tokens (audited). */
  removeUser(email: string): Promise<void>;
  /** The caller's own password (--server only: the token's owner, given the current password). */
  changeOwnPassword(input: { currentPassword: string; newPassword: string }): Promise<void>;
}

export async function openDatabaseAccounts(handle: DatabaseHandle): Promise<AccountStore> {
  const auth = createAuth(handle.db, await readSecret(handle.db));
  return {
    listUsers: () => listUsers(handle.db),
    // On the database itself there is no sign-in: the audit names no actor (null) for these.
    addUser: (input) => addUser(auth, handle.db, null, input),
    listTokens: () => listTokens(handle.db),
    createToken: async (input) => (await createToken(auth, handle.db, input)).token,
    revokeToken: async (id) => {
      await revokeToken(handle.db, id);
    },
    changeUser: (input) => changeUser(auth, handle.db, null, input),
    removeUser: async (email) => {
      await removeUser(auth, handle.db, null, { email });
    },
    changeOwnPassword: async () => {
      throw new AccountError(
        "invalid_request",
        "account password changes the password of the token's owner: give --server (on the database itself, `user password <email>` sets anyone's).",
      );
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
    changeUser: ({ email, ...change }) =>
      server.request("PATCH", `/api/users/${encodeURIComponent(email)}`, change),
    removeUser: async (email) => {
      await server.request("DELETE", `/api/users/${encodeURIComponent(email)}`);
    },
    changeOwnPassword: async (input) => {
      await server.request("POST", "/api/account/password", input);
    },
  };
}

/** A password from the environment variable named (never from the command line). */
function readPassword(variable: string, whose: string): string {
  const password = process.env[variable];
  if (!password) {
    throw new AccountError("invalid_request", `Put ${whose} in ${variable} (never on the command line).`);
  }
  return password;
}

/** A mistake in the command line itself (the CLI prints it and exits 2), not a refusal of the accounts. */
export class AccountUsageError extends Error {}

/** How many arguments each command takes after its two words: `user add <email>` one, `user list` none. */
const ARGUMENT_COUNT: Record<string, number> = {
  "user list": 0,
  "user add": 1,
  "user role": 1,
  "user deactivate": 1,
  "user activate": 1,
  "user password": 1,
  "user remove": 1,
  "account password": 0,
  "token list": 0,
  "token create": 1,
  "token revoke": 1,
};

/** Runs one account command; returns the text for stdout, or throws an AccountError or an AccountUsageError. */
export async function manageAccounts(accounts: AccountStore, args: AccountArguments): Promise<string> {
  const [noun, verb, ...rest] = args.positionals;
  const usage = (problem?: string) =>
    new AccountUsageError(
      `${problem === undefined ? "" : `${problem}\n`}usage:\n${
        noun === "user" || noun === "account" || noun === "token" ? accountUsageOf(noun) : ACCOUNT_USAGE
      }`,
    );
  const takes = ARGUMENT_COUNT[`${noun} ${verb}`];
  if (takes !== undefined && rest.length > takes) {
    throw usage(describeExtraArguments([noun, verb, ...rest.slice(0, takes)].join(" "), rest.slice(takes)));
  }
  const [subject] = rest;
  // A role the command line names, checked here so the mistake names what was given (exit 2).
  const checkRole = (allowed: readonly string[]): Role => {
    if (args.role === undefined) throw usage(`--role is required: one of ${allowed.join(", ")}`);
    if (!isRole(args.role))
      throw usage(`--role must be one of ${allowed.join(", ")}; got ${JSON.stringify(args.role)}`);
    return args.role;
  };
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  if (noun === "user" && verb === "list") return json(await accounts.listUsers());
  if (noun === "user" && verb === "add" && subject) {
    if (!userEmailSchema.safeParse(subject).success) {
      throw usage(`user add: ${JSON.stringify(subject)} is not an email address`);
    }
    const role = checkRole(PERSON_ROLES);
    const password = readPassword(args.passwordEnv ?? "PLAYGROUND_NEW_PASSWORD", "the new user's password");
    const name = args.name ?? subject.split("@")[0] ?? subject;
    return json(await accounts.addUser({ email: subject, name, password, role }));
  }
  if (noun === "user" && verb === "role" && subject) {
    return json(await accounts.changeUser({ email: subject, role: checkRole(PERSON_ROLES) }));
  }
  if (noun === "user" && (verb === "deactivate" || verb === "activate") && subject) {
    return json(await accounts.changeUser({ email: subject, isActive: verb === "activate" }));
  }
  if (noun === "user" && verb === "password" && subject) {
    const password = readPassword(args.passwordEnv ?? "PLAYGROUND_NEW_PASSWORD", "the new password");
    await accounts.changeUser({ email: subject, password });
    return `set the password of ${subject}; their sessions ended\n`;
  }
  if (noun === "user" && verb === "remove" && subject) {
    await accounts.removeUser(subject);
    return `removed ${subject} with their sessions and tokens (the audit keeps their rows)\n`;
  }
  if (noun === "account" && verb === "password") {
    await accounts.changeOwnPassword({
      currentPassword: readPassword("PLAYGROUND_CURRENT_PASSWORD", "your current password"),
      newPassword: readPassword(args.passwordEnv ?? "PLAYGROUND_NEW_PASSWORD", "your new password"),
    });
    return "changed your password; your sessions ended\n";
  }
  if (noun === "token" && verb === "list") return json(await accounts.listTokens());
  if (noun === "token" && verb === "create" && subject && args.name) {
    const token = await accounts.createToken({
      email: subject,
      name: args.name,
      role: args.role === undefined ? undefined : checkRole(ROLES),
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
