import { ROLES } from "../lib/server/auth/roles";

/** The account commands, for usage messages (kept apart so the `run` command loads no auth code). */
export const ACCOUNT_USAGE = `  user add <email> --role <${ROLES.join("|")}> [--name NAME] [--password-env VAR]
  user list
  token create <email> --name <name> [--role ROLE]   (prints the token once)
  token list
  token revoke <id | name> [--email OWNER]   (a name must designate one token: add its owner's email)`;
