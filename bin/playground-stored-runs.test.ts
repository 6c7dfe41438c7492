import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { processes, runCli, temporaryFolder, writeScenario } from "./testing/cli";

// The commands on runs: compare two policies headless, and export, archive and delete stored runs.

describe("npm run -s playground -- compare <scenario.json>", () => {
  it("runs the scenario under both policies and prints what barriers saved", {
    timeout: processes(1),
  }, () => {
    const result = runCli(["compare", path.join("lib", "scenarios", "fourteen-reads-cap-eight.json")]);
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
  it("prints a stored run as a scenario whose replay gives the same outcomes, and refuses an unknown run", {
    timeout: processes(4),
  }, () => {
    const folder = temporaryFolder("tp-export-");
    const cli = (...args: string[]) => runCli(args, { db: folder });
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
  });
});

describe("npm run -s playground -- archive|unarchive|delete <runId>", () => {
  it("archives and deletes a stored run on the database, and says what became of a deleted one", {
    timeout: processes(6),
  }, () => {
    const folder = temporaryFolder("tp-housekeeping-");
    const cli = (...args: string[]) => runCli(args, { db: folder });
    const recorded = JSON.parse(
      cli("run", path.join("lib", "scenarios", "two-gates-in-one-batch.json")).stdout,
    );
    const archived = cli("archive", recorded.runId);
    expect(archived.status).toBe(0);
    expect(JSON.parse(archived.stdout)).toMatchObject({
      runId: recorded.runId,
      archived: true,
      changed: true,
    });
    const deleted = cli("delete", recorded.runId);
    expect(JSON.parse(deleted.stdout)).toEqual({ runId: recorded.runId, deleted: true });
    const again = cli("delete", recorded.runId);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/was deleted at .* from the command line/);
    // Four CLI processes on an embedded database folder: slow on a busy machine.
  });
});

describe("npm run -s playground -- retention", () => {
  it("refuses a wrong or missing --older-than by name, and a dry run keeps a run of today and writes nothing", {
    timeout: processes(4),
  }, () => {
    const folder = temporaryFolder("tp-retention-cli-");
    const out = path.join(folder, "retained");
    const cli = (...args: string[]) => runCli(args, { db: path.join(folder, "db") });
    const wrong = cli("retention", "--older-than", "3 months", "--out", out);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/--older-than takes whole days, like 90d/);
    const missing = cli("retention", "--out", out);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^playground: retention: --older-than is required/);

    const recorded = JSON.parse(
      cli("run", path.join("lib", "scenarios", "two-gates-in-one-batch.json")).stdout,
    );
    expect(recorded.status).toBe("COMPLETED");
    const dryRun = cli("retention", "--older-than", "1d", "--out", out, "--dry-run");
    expect(dryRun.status).toBe(0);
    expect(JSON.parse(dryRun.stdout)).toMatchObject({
      dryRun: true,
      droppedPartitions: [],
      exportedRuns: [],
    });
    expect(existsSync(out)).toBe(false);
  });
});
