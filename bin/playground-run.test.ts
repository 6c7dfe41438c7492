import path from "node:path";
import { describe, expect, it } from "vitest";
import { memoryServerConfig } from "../lib/server/mcp/testing/memory-server";
import { processes, runCli, temporaryFolder, writeScenario } from "./testing/cli";

// `playground run`, as users and scripts run it: stdout is the report and nothing else.

describe("npm run playground -- run <scenario.json>", () => {
  it("prints only the JSON run report on stdout", { timeout: processes(1) }, () => {
    const result = runCli(["run", path.join("lib", "scenarios", "write-then-read-back.json")], {
      throughNpm: true,
    });
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ status: "COMPLETED", modelCalls: 2, pending: null });
    expect(report.decisions).toMatchObject([{ approve: true, outcome: "executed" }]);
    expect(result.stderr).toContain("COMPLETED");
  });

  it("runs a scenario that uses an operator's MCP server: the memory preset, its write decided, the entity read back", {
    timeout: processes(2),
  }, () => {
    const memoryFile = path.join(temporaryFolder("tp-cli-mcp-"), "memory.jsonl");
    const runPreset = (servers: string) =>
      runCli(["run", path.join("lib", "scenarios", "mcp-memory-create-then-read.json")], {
        env: { DATABASE_URL: "", PLAYGROUND_MCP_SERVERS: servers },
      });
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
  });

  it("refuses an invalid scenario before any run, naming each JSON path", { timeout: processes(1) }, () => {
    const file = writeScenario(
      JSON.stringify({
        name: "bad",
        model: { kind: "scripted", turns: [{ calls: [{ name: 7 }] }] },
        decison: [],
      }),
    );
    const result = runCli(["run", file]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("model.turns[0].calls[0].name");
    expect(result.stderr).toContain("model.turns[0].calls[0].arguments");
    expect(result.stderr).toContain('"decison"');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("runs in this process with PLAYGROUND_URL set for the commands that ask the app, and says so to --server", {
    timeout: processes(3),
  }, () => {
    const scenario = path.join("lib", "scenarios", "write-then-read-back.json");
    // Nothing listens there: a run that tried to reach it would fail.
    const env = { PLAYGROUND_URL: "http://127.0.0.1:9", PLAYGROUND_TOKEN: "tp_unused" };
    const ran = runCli(["run", scenario], { env });
    expect(ran.status).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ status: "COMPLETED" });
    const unknown = runCli(["walk"], { env });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown command "walk"');
    const toServer = runCli(["run", scenario, "--server", "http://127.0.0.1:9"]);
    expect(toServer.status).toBe(2);
    expect(toServer.stderr).toContain(
      "run and compare run the scenario in this process, not in the app at --server",
    );
  });

  it("explains unreadable files and bad usage without a stack trace", { timeout: processes(3) }, () => {
    const missing = runCli(["run", "no-such-scenario.json"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("cannot read no-such-scenario.json");
    const notJson = runCli(["run", writeScenario("{ not json")]);
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toContain("not valid JSON");
    const usage = runCli(["walk"]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('unknown command "walk"');
    expect(usage.stderr).toContain("usage: npm run -s playground -- <command>");
    expect(usage.stderr).toContain("run <scenario.json>");
    expect(usage.stderr).toContain("token create <email>");
    const help = runCli(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("usage: npm run -s playground -- <command>");
  });
});
