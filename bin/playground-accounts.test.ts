import { describe, expect, it } from "vitest";
import { processes, runCli, temporaryFolder } from "./testing/cli";

// The account commands on the embedded database: users and API tokens.

describe("npm run -s playground -- user … / token …", () => {
  it("adds a user from a password in the environment, creates a token printed once, lists and revokes it", {
    timeout: processes(8),
  }, () => {
    const folder = temporaryFolder("tp-accounts-");
    const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { db: folder, env });
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
  });
});
