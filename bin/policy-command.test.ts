import { describe, expect, it } from "vitest";
import { backtestPolicy, checkPolicy } from "../lib/runtime";
import {
  formatBacktest,
  type PolicyBackend,
  PolicyUsageError,
  parseSince,
  runPolicyCommand,
} from "./policy-command";

const now = new Date("2026-03-09T12:00:00Z");

describe("playground policy", () => {
  const published: Array<[string, string]> = [];
  const filters: Array<{ tool?: string; runIds?: string[] }> = [];
  const backend: PolicyBackend = {
    publish: async (document, mode) => {
      published.push([document, mode]);
      return { version: published.length, mode };
    },
    backtest: async (document, _since, filter) => {
      filters.push(filter);
      const checked = checkPolicy(document);
      if (!checked.ok) throw new Error("refused");
      return {
        ...backtestPolicy({ version: null, policy: checked.policy }, [], {
          describeTool: () => undefined,
          trustOf: () => "untrusted",
        }),
        truncated: false,
      };
    },
  };
  const input = (
    positionals: string[],
    extra: { shadow?: boolean; since?: string; tool?: string; runs?: string[] } = {},
  ) => ({
    positionals: ["policy", ...positionals],
    shadow: extra.shadow ?? false,
    since: extra.since,
    tool: extra.tool,
    runs: extra.runs,
    readFile: () => "rules:\n  - name: a\n    effect: allow\n",
    now,
  });

  it("publishes the file as is, live or in shadow", async () => {
    expect(await runPolicyCommand(input(["publish", "p.yaml"]), backend)).toBe(
      "published version 1 (live)\n",
    );
    expect(await runPolicyCommand(input(["publish", "p.yaml"], { shadow: true }), backend)).toBe(
      "published version 2 (shadow)\n",
    );
    expect(published.map(([, mode]) => mode)).toEqual(["live", "shadow"]);
  });

  it("prints the backtest's totals", async () => {
    expect(await runPolicyCommand(input(["test", "p.yaml"], { since: "7d" }), backend)).toContain(
      "approvals no longer asked: 0\ncalls denied: 0",
    );
  });

  it("passes --tool and every --run to the backtest, and refuses them on publish", async () => {
    filters.length = 0;
    await runPolicyCommand(
      input(["test", "p.yaml"], { since: "1d", tool: "write_file", runs: ["r1", "r2"] }),
      backend,
    );
    await runPolicyCommand(input(["test", "p.yaml"], { since: "1d" }), backend);
    expect(filters).toEqual([{ tool: "write_file", runIds: ["r1", "r2"] }, {}]);
    await expect(
      runPolicyCommand(input(["publish", "p.yaml"], { tool: "write_file" }), backend),
    ).rejects.toThrow(/--tool and --run belong to policy test/);
  });

  it("refuses an argument the command does not take, naming it, and publishes nothing", async () => {
    published.length = 0;
    const refused = runPolicyCommand(input(["publish", "p.yaml", "other.yaml"]), backend);
    await expect(refused).rejects.toThrow(PolicyUsageError);
    await expect(refused).rejects.toThrow('unexpected argument after policy publish p.yaml: "other.yaml"');
    expect(published).toEqual([]);
  });

  it("prints the approvals asked per day, before and after", () => {
    expect(
      formatBacktest({
        rows: [],
        totals: {
          calls: 0,
          differences: 0,
          approvalsNoLongerAsked: 0,
          denied: 0,
          newlyGated: 0,
          waitsNeedingSecondApprover: 0,
        },
        workload: [{ day: "2026-03-02", before: 3, after: 1 }],
        truncated: false,
      }),
    ).toContain("approvals asked per day (before -> after):\n2026-03-02: 3 -> 1\n");
  });

  it("reads --since as a duration, and refuses anything else", () => {
    expect(parseSince("7d", now).toISOString()).toBe("2026-03-02T12:00:00.000Z");
    expect(parseSince("90m", now).toISOString()).toBe("2026-03-09T10:30:00.000Z");
    expect(() => parseSince("a week", now)).toThrow(PolicyUsageError);
    expect(() => parseSince(undefined, now)).toThrow(/--since takes a duration/);
  });
});
