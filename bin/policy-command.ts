// `playground policy publish FILE [--shadow]` and `playground policy test FILE --since 7d [--tool NAME] [--run ID]…`
// (docs/policies.md#backtest): the document is read from FILE and sent as is; the
// server (or the app's database) checks it, so the refusals are the publish route's own.
import type { BacktestResult } from "../lib/runtime";
import { describeExtraArguments } from "./extra-arguments";

export const POLICY_USAGE = `  policy publish <policy.yaml> [--shadow]   publishes a version of the approval policy (live, or in shadow)
  policy test <policy.yaml> --since 7d      backtests it over the runs recorded since then (s, m, h, d);
    [--tool <name>] [--run <run id>]…       only that tool's calls, only those runs`;

/** Where the command acts: a running app's API, or the app's database. */
export interface PolicyBackend {
  publish(document: string, mode: "live" | "shadow"): Promise<{ version: number; mode: string }>;
  backtest(
    document: string,
    since: Date,
    filter: { tool?: string; runIds?: string[] },
  ): Promise<BacktestResult & { truncated: boolean }>;
}

/** A usage mistake: the CLI prints it with the usage and exits 2. */
export class PolicyUsageError extends Error {}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `7d`, `12h`, `30m`, `45s` → that long before `now`. */
export function parseSince(value: string | undefined, now: Date): Date {
  const match = value === undefined ? null : /^(\d{1,6})([smhd])$/.exec(value);
  if (!match?.[1] || !match[2]) {
    throw new PolicyUsageError(
      `--since takes a duration such as 7d, 12h, 30m or 45s, got ${JSON.stringify(value ?? null)}`,
    );
  }
  return new Date(now.getTime() - Number(match[1]) * (UNIT_MS[match[2]] ?? 0));
}

/** Runs the subcommand; answers what to print on stdout. */
export async function runPolicyCommand(
  input: {
    positionals: string[];
    shadow: boolean;
    since: string | undefined;
    tool?: string | undefined;
    runs?: string[] | undefined;
    readFile(path: string): string;
    now: Date;
  },
  backend: PolicyBackend,
): Promise<string> {
  const [, action, file, ...extra] = input.positionals;
  if ((action !== "publish" && action !== "test") || !file) {
    throw new PolicyUsageError(`usage:\n${POLICY_USAGE}`);
  }
  if (extra.length > 0) {
    throw new PolicyUsageError(
      `${describeExtraArguments(`policy ${action} ${file}`, extra)}\nusage:\n${POLICY_USAGE}`,
    );
  }
  const document = input.readFile(file);
  if (action === "publish") {
    if (input.since !== undefined || input.tool !== undefined || (input.runs ?? []).length > 0) {
      throw new PolicyUsageError("--since, --tool and --run belong to policy test");
    }
    const stored = await backend.publish(document, input.shadow ? "shadow" : "live");
    return `published version ${stored.version} (${stored.mode})\n`;
  }
  if (input.shadow) throw new PolicyUsageError("--shadow belongs to policy publish");
  const runs = input.runs ?? [];
  return formatBacktest(
    await backend.backtest(document, parseSince(input.since, input.now), {
      ...(input.tool !== undefined ? { tool: input.tool } : {}),
      ...(runs.length > 0 ? { runIds: runs } : {}),
    }),
  );
}

/** One line per call, then the totals, then the approver workload per day. */
export function formatBacktest(result: BacktestResult & { truncated: boolean }): string {
  const lines = result.rows.map((row) => {
    const change =
      row.recorded === row.candidate
        ? `${row.candidate} (as recorded)`
        : `${row.recorded} -> ${row.candidate}`;
    const by = row.rule === null ? "declaration" : `rule ${row.rule}`;
    const quorum = row.quorum !== null && row.quorum > 1 ? `, ${row.quorum} approvers` : "";
    const error = row.error ? `, ${row.error}` : "";
    return `run ${row.runId} step ${row.step} call ${row.batchIndex} ${row.toolName}: ${change} by ${by}${quorum}${error}`;
  });
  const { totals } = result;
  lines.push(
    "",
    `calls: ${totals.calls}`,
    `differences: ${totals.differences}`,
    `approvals no longer asked: ${totals.approvalsNoLongerAsked}`,
    `calls denied: ${totals.denied}`,
    `calls newly gated: ${totals.newlyGated}`,
    `waits needing a second approver: ${totals.waitsNeedingSecondApprover}`,
  );
  if (result.workload.length > 0) {
    lines.push("", "approvals asked per day (before -> after):");
    for (const day of result.workload) lines.push(`${day.day}: ${day.before} -> ${day.after}`);
  }
  if (result.truncated) lines.push("note: only the most recently active runs were replayed; narrow --since");
  return `${lines.join("\n")}\n`;
}
