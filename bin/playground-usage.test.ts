import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { processes, runCli, temporaryFolder } from "./testing/cli";

// What a person types first: asking for the usage or the version, and the mistakes usage answers.

const WHOLE_USAGE = "usage: npm run -s playground -- <command>";

describe("npm run -s playground -- --help / -h / help / --version", () => {
  it("prints the whole usage on stdout, exit 0, however it is asked for", { timeout: processes(3) }, () => {
    for (const args of [["-h"], ["--help"], ["help"]]) {
      const asked = runCli(args);
      expect(asked.status, args.join(" ")).toBe(0);
      expect(asked.stdout).toContain(WHOLE_USAGE);
      expect(asked.stdout).toContain("run <scenario.json>");
      expect(asked.stdout).toContain("token create <email>");
      expect(asked.stderr).toBe("");
    }
  });

  it("prints the app's version, exit 0", { timeout: processes(1) }, () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8"));
    const asked = runCli(["--version"]);
    expect(asked.status).toBe(0);
    expect(asked.stdout).toBe(`${version}\n`);
  });

  it("prints one command's usage for <command> --help and help <command>", { timeout: processes(3) }, () => {
    for (const args of [
      ["user", "--help"],
      ["help", "user"],
      ["user", "add", "-h"],
    ]) {
      const asked = runCli(args);
      expect(asked.status, args.join(" ")).toBe(0);
      expect(asked.stdout).toContain("usage: npm run -s playground -- user …");
      expect(asked.stdout).toContain("user add <email> --role");
      expect(asked.stdout).not.toContain(WHOLE_USAGE);
      expect(asked.stdout).not.toContain("token create");
    }
  });

  it("answers a mistake with exit 2, naming what was given", { timeout: processes(4) }, () => {
    const db = temporaryFolder("tp-usage-");
    const extra = runCli(["user", "list", "extra"], { db });
    expect(extra.status).toBe(2);
    expect(extra.stdout).toBe("");
    expect(extra.stderr).toContain('unexpected argument after user list: "extra"');
    const notAnEmail = runCli(["user", "add", "a@b.c", "--role", "viewer"], {
      db,
      env: { PLAYGROUND_NEW_PASSWORD: "a-password-1" },
    });
    expect(notAnEmail.status).toBe(2);
    expect(notAnEmail.stderr).toContain('"a@b.c" is not an email address');
    const exportExtra = runCli(["export", "some-run", "another"]);
    expect(exportExtra.status).toBe(2);
    expect(exportExtra.stderr).toContain('unexpected argument after export some-run: "another"');
    expect(exportExtra.stderr).toContain("usage: npm run -s playground -- export …");
    const unknownTopic = runCli(["help", "walk"]);
    expect(unknownTopic.status).toBe(2);
    expect(unknownTopic.stderr).toContain('unknown command "walk"');
  });
});
