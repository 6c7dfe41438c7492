// What `playground` prints for `--help`, `-h`, `help [command]` and a usage mistake: the whole
// usage, or one command's lines of it. Kept apart from the commands (and from their code) so that
// asking for help loads nothing else.
import { accountUsageOf } from "./account-usage";
import { POLICY_USAGE } from "./policy-command";

const ARCHIVE_USAGE =
  "  archive|unarchive <runId>   hides a run from the runs list and the inbox, or shows it again";

/** Each command's lines of the usage, in the order the whole usage lists them. */
const COMMAND_USAGE: Record<string, string> = {
  run: "  run <scenario.json> [--db DIR]",
  export: "  export <runId> [--db DIR]   a stored run as a scenario that replays it (stdout)",
  archive: ARCHIVE_USAGE,
  unarchive: ARCHIVE_USAGE,
  delete: "  delete <runId>              deletes an ended run's data; its decisions stay in the audit",
  compare: "  compare <scenario.json>     runs it under both execution policies; prints both runs' figures",
  retention: `  retention --older-than 90d --out DIR [--dry-run]
                              writes out finished runs older than that (export, report, sha256), then
                              drops the event partitions holding only them; the audit stays`,
  user: accountUsageOf("user"),
  account: accountUsageOf("account"),
  token: accountUsageOf("token"),
  policy: POLICY_USAGE,
};

const WHERE = `The account, policy, export, archive and delete commands act on the app's database (DATABASE_URL,
or the embedded folder, which they cannot open while the app runs), on --db DIR, or with --server
URL (or PLAYGROUND_URL) on a running app, as the admin whose API token is in PLAYGROUND_TOKEN.
retention acts on the database only; run and compare run in this process, whatever PLAYGROUND_URL says.`;

export const USAGE = `usage: npm run -s playground -- <command>
${[...new Set(Object.values(COMMAND_USAGE))].join("\n")}
  help [command], --help, -h  this usage, or one command's (\`user --help\`)
  --version                   the app's version
${WHERE}`;

/** True for a command this CLI has. */
export function isCommand(name: string): boolean {
  return Object.hasOwn(COMMAND_USAGE, name);
}

/** One command's usage (`user --help`, `help user`): its lines, and where the commands act. */
export function usageOf(command: string): string {
  const lines = COMMAND_USAGE[command];
  return lines === undefined ? USAGE : `usage: npm run -s playground -- ${command} …\n${lines}\n${WHERE}`;
}
