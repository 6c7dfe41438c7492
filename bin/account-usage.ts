import { PERSON_ROLES } from "../lib/wire/roles";

/** The account commands, for usage messages (kept apart so the `run` command loads no auth code). */
export const ACCOUNT_USAGE = `  user add <email> --role <${PERSON_ROLES.join("|")}> [--name NAME] [--password-env VAR]
  user list
  user role <email> --role <${PERSON_ROLES.join("|")}>   (never the last admin's)
  user deactivate <email> | user activate <email>   (deactivated: no sign-in, sessions end, tokens stop)
  user password <email> [--password-env VAR]   (sets it from PLAYGROUND_NEW_PASSWORD; their sessions end)
  user remove <email>   (with their sessions and tokens; the audit keeps their rows)
  account password   (--server only: the token owner's own; PLAYGROUND_CURRENT_PASSWORD and PLAYGROUND_NEW_PASSWORD)
  token create <email> --name <name> [--role ROLE]   (prints the token once)
  token list
  token revoke <id | name> [--email OWNER]   (a name must designate one token: add its owner's email)`;

/** The lines of one noun's commands (`user`, `account`, `token`), for that noun's usage. */
export function accountUsageOf(noun: "user" | "account" | "token"): string {
  return ACCOUNT_USAGE.split("\n")
    .filter((line) => line.startsWith(`  ${noun} `))
    .join("\n");
}
