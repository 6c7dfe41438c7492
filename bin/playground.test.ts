import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

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
    expect(usage.stderr).toContain("usage: npm run playground -- run <scenario.json>");
  });
});
