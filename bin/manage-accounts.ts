// `playground user …` and `playground token …`: people and API tokens, managed
// against the configured database directly (no sign-in: whoever can reach the
// database already administers the app).
import type { DatabaseHandle } from "../db/client";
import {
  AccountError,
  createToken,
  createUser,
  listTokens,
  listUsers,
  revokeToken,
} from "../lib/server/auth/accounts";
import { createAuth, readSecret } from "../lib/server/auth/auth";
import { isRole, ROLES } from "../lib/server/auth/roles";

import { ACCOUNT_USAGE } from "./account-usage";

export interface AccountArguments {
  positionals: string[];
  role?: string;
  name?: string;
  passwordEnv?: string;
}

/** Runs one account command; returns the text for stdout, or throws an AccountError or a usage Error. */
export async function manageAccounts(handle: DatabaseHandle, args: AccountArguments): Promise<string> {
  const auth = createAuth(handle.db, await readSecret(handle.db));
  const [noun, verb, subject] = args.positionals;
  const usage = () => new Error(`usage:\n${ACCOUNT_USAGE}`);
  if (noun === "user" && verb === "list") return `${JSON.stringify(await listUsers(handle.db), null, 2)}\n`;
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
    return `${JSON.stringify(await createUser(auth, { email: subject, name, password, role: args.role }), null, 2)}\n`;
  }
  if (noun === "token" && verb === "list") return `${JSON.stringify(await listTokens(handle.db), null, 2)}\n`;
  if (noun === "token" && verb === "create" && subject && args.name) {
    if (args.role !== undefined && !isRole(args.role)) {
      throw new AccountError("invalid_request", `--role must be one of ${ROLES.join(", ")}.`);
    }
    const { token } = await createToken(auth, handle.db, {
      email: subject,
      name: args.name,
      role: isRole(args.role) ? args.role : undefined,
    });
    return `${token}\n`;
  }
  if (noun === "token" && verb === "revoke" && subject) {
    await revokeToken(handle.db, subject);
    return `revoked ${subject}\n`;
  }
  throw usage();
}
