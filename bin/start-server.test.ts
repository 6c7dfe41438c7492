import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { SERVER_ENTRY, SERVER_NODE_FLAGS } from "../lib/server/testing/production-start";

// The production server's own refusals, as a newcomer meets them; what it serves is checked on the
// suite's build (e2e/checks/48-api-lane.spec.ts) and, route by route, in api-lane.test.ts.
function start(args: string[], cwd = process.cwd()) {
  return spawnSync(process.execPath, [...SERVER_NODE_FLAGS, path.resolve(SERVER_ENTRY), ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    timeout: 60_000,
  });
}

describe("npm start", () => {
  it("before any build, says to build and exits without a stack trace", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "tp-no-build-"));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const started = start(["-p", "0"], folder);
    expect(started.status).toBe(1);
    expect(started.stderr).toMatch(/Could not find a production build .*'next build'/);
    expect(started.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    [["-p", "eighty"], /the port must be a whole number from 0 to 65535, not "eighty"/],
    [["--keepAliveTimeout", "soon"], /--keepAliveTimeout must be milliseconds, not "soon"/],
    [["--prot", "3000"], /Unknown option '--prot'/],
  ])("refuses %j, naming it, with its usage", (args, message) => {
    const started = start(args);
    expect(started.status).toBe(2);
    expect(started.stderr).toMatch(message);
    expect(started.stderr).toContain("usage: npm start [-- -p <port>]");
  });
});
