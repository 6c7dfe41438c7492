import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { memoryServerConfig } from "../lib/server/mcp/testing/memory-server";

// The real command, as users and scripts run it: stdout must be the report and nothing else.
function runCli(...args: string[]) {
  const environment: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  // The CLI talks to the server named by DATABASE_URL; tests give it TEST_DATABASE_URL's server, if any.
  if (process.env.TEST_DATABASE_URL) environment.DATABASE_URL = process.env.TEST_DATABASE_URL;
  else delete environment.DATABASE_URL;
  return spawnSync("npm", ["run", "--silent", "playground", "--", ...args], {
    encoding: "utf8",
    env: environment,
  });
}

function writeScenario(content: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "tp-cli-")), "scenario.json");
  writeFileSync(file, content);
  return file;
}

describe("npm run playground -- run <scenario.json>", () => {
  it("prints only the JSON run report on stdout", () => {
    const result = runCli("run", path.join("lib", "scenarios", "write-then-read-back.json"));
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ status: "COMPLETED", modelCalls: 2, pending: null });
    expect(report.decisions).toMatchObject([{ approve: true, outcome: "executed" }]);
    expect(result.stderr).toContain("COMPLETED");
  });

  it("runs a scenario that uses an operator's MCP server: the memory preset, its write decided, the entity read back", () => {
    const memoryFile = path.join(mkdtempSync(path.join(tmpdir(), "tp-cli-mcp-")), "memory.jsonl");
    const runPreset = (servers: string) =>
      spawnSync(
        "npm",
        [
          "run",
          "--silent",
          "playground",
          "--",
          "run",
          path.join("lib", "scenarios", "mcp-memory-create-then-read.json"),
        ],
        { encoding: "utf8", env: { ...process.env, DATABASE_URL: "", PLAYGROUND_MCP_SERVERS: servers } },
      );
    const result = runPreset(JSON.stringify({ memory: memoryServerConfig(memoryFile) }));
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      status: "COMPLETED",
      decisions: [{ approve: true, outcome: "executed" }],
    });
    expect(report.steps[0].calls[1].result.entities).toMatchObject([{ name: "Ada Lovelace" }]);
    const unconfigured = runPreset("");
    expect(unconfigured.status).toBe(2);
    expect(unconfigured.stderr).toContain('mcpServers.0: no MCP server "memory" is configured');
  }, 60_000);

  it("refuses an invalid scenario before any run, naming each JSON path", () => {
    const file = writeScenario(
      JSON.stringify({
        name: "bad",
        model: { kind: "scripted", turns: [{ calls: [{ name: 7 }] }] },
        decison: [],
      }),
    );
    const result = runCli("run", file);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("model.turns[0].calls[0].name");
    expect(result.stderr).toContain("model.turns[0].calls[0].arguments");
    expect(result.stderr).toContain('"decison"');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("explains unreadable files and bad usage without a stack trace", () => {
    const missing = runCli("run", "no-such-scenario.json");
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("cannot read no-such-scenario.json");
    const notJson = runCli("run", writeScenario("{ not json"));
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toContain("not valid JSON");
    const usage = runCli("walk");
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("usage: npm run -s playground -- <command>");
    expect(usage.stderr).toContain("run <scenario.json>");
    expect(usage.stderr).toContain("token create <email>");
  });
});

describe("npm run -s playground -- compare <scenario.json>", () => {
  it("runs the scenario under both policies and prints what barriers saved", () => {
    const result = runCli("compare", path.join("lib", "scenarios", "fourteen-reads-cap-eight.json"));
    expect(result.status).toBe(0);
    const comparison = JSON.parse(result.stdout);
    expect(comparison).toMatchObject({
      barriers: { status: "COMPLETED", completions: 2, wastedCompletions: 0, callsExecuted: 15 },
      legacy: { status: "COMPLETED", completions: 3, wastedCompletions: 1 },
      savedCompletions: 1,
      completionRatio: 1.5,
    });
  });
});

describe("npm run -s playground -- export <runId>", () => {
  it("prints a stored run as a scenario whose replay gives the same outcomes, and refuses an unknown run", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "tp-export-"));
    const cli = (...args: string[]) =>
      spawnSync("npm", ["run", "--silent", "playground", "--", ...args, "--db", folder], {
        encoding: "utf8",
        env: { ...process.env, DATABASE_URL: "", NEXT_TELEMETRY_DISABLED: "1" },
      });
    const recorded = JSON.parse(
      cli("run", path.join("lib", "scenarios", "two-gates-in-one-batch.json")).stdout,
    );
    const exported = cli("export", recorded.runId);
    expect(exported.status).toBe(0);
    const scenario = JSON.parse(exported.stdout);
    expect(scenario).toMatchObject({
      name: "two approval barriers in one batch (replay)",
      model: { kind: "scripted" },
    });
    const replayed = JSON.parse(cli("run", writeScenario(exported.stdout)).stdout);
    const outcomes = (report: { steps: Array<{ calls: Array<{ name: string; status: string }> }> }) =>
      report.steps.map((step) => step.calls.map((call) => `${call.name}:${call.status}`));
    expect(outcomes(replayed)).toEqual(outcomes(recorded));
    const unknown = cli("export", "00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("no run 00000000-0000-4000-8000-000000000000");
    expect(unknown.stdout).toBe("");
    // Four CLI processes, three opening an embedded database folder: slow on a busy machine.
  }, 120_000);
});

describe("npm run -s playground -- user … / token …", () => {
  it("adds a user from a password in the environment, creates a token printed once, lists and revokes it", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "tp-accounts-"));
    const cli = (args: string[], env: Record<string, string> = {}) =>
      spawnSync("npm", ["run", "--silent", "playground", "--", ...args, "--db", folder], {
        encoding: "utf8",
        env: { ...process.env, DATABASE_URL: "", NEXT_TELEMETRY_DISABLED: "1", ...env },
      });
    const added = cli(["user", "add", "ada@example.com", "--role", "approver"], {
      PLAYGROUND_NEW_PASSWORD: "ada-pass-1",
    });
    expect(added.status).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ email: "ada@example.com", role: "approver" });
    expect(added.stdout).not.toContain("ada-pass-1");

    const noPassword = cli(["user", "add", "bob@example.com", "--role", "viewer"]);
    expect(noPassword.status).toBe(1);
    expect(noPassword.stderr).toContain("PLAYGROUND_NEW_PASSWORD");

    const created = cli(["token", "create", "ada@example.com", "--name", "ci-bot"]);
    expect(created.status).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^tp_\w{20,}$/);
    const tooHigh = cli(["token", "create", "ada@example.com", "--name", "root", "--role", "admin"]);
    expect(tooHigh.status).toBe(1);
    expect(tooHigh.stderr).toContain("at most its owner's role (approver)");

    const listed = cli(["token", "list"]);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { name: "ci-bot", ownerEmail: "ada@example.com", role: "approver" },
    ]);
    expect(listed.stdout).not.toContain(token);
    const revoked = cli(["token", "revoke", "ci-bot"]);
    expect(revoked.status).toBe(0);
    expect(revoked.stdout).toMatch(/^revoked ci-bot \(\w+\) of ada@example\.com\n$/);
    // Each command is its own process opening the database: give the seven of them room on a busy machine.
  }, 180_000);
});
