import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { SERVER_ENTRY, SERVER_NODE_FLAGS } from "../lib/server/testing/production-start";

// The production server's own refusals, as a newcomer meets them, and the port it gives the app;
// what it serves is checked on the suite's build (e2e/checks/48-api-lane.spec.ts) and, route by
// route, in api-lane.test.ts.
function start(args: string[], cwd = process.cwd(), env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [...SERVER_NODE_FLAGS, path.resolve(SERVER_ENTRY), ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env },
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

  // The app's code that runs while Next prepares (instrumentation.ts: the database lock's note naming
  // the server, the notifier whose links point at it) reads the port from PORT. A folder without a
  // build whose next.config.mjs, which Next runs then too, says what it reads and whether anything
  // answers there shows it without a build.
  it.each([
    ["-p 0", ["-p", "0"], {}],
    ["PORT=0", [], { PORT: "0" }],
  ])(
    "given %s, the app's code reads the port the OS picked, on which the server already listens",
    (_, args, env) => {
      const folder = mkdtempSync(path.join(tmpdir(), "tp-port-0-"));
      onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
      writeFileSync(
        path.join(folder, "next.config.mjs"),
        `import { connect } from "node:net";
const port = Number(process.env.PORT);
const answers = await new Promise((resolve) => {
  const socket = connect(port, "127.0.0.1");
  socket.once("connect", () => {
    socket.destroy();
    resolve(true);
  });
  socket.once("error", () => resolve(false));
});
console.log("the app's code reads " + JSON.stringify({ port, answers }));
export default {};
`,
      );
      const started = start(args, folder, env);
      const read = /the app's code reads (.*)/.exec(started.stdout)?.[1];
      expect(read, started.stdout + started.stderr).toBeDefined();
      const { port, answers } = JSON.parse(read ?? "{}") as { port: number; answers: boolean };
      expect(port).toBeGreaterThan(0);
      expect(answers).toBe(true);
    },
  );

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
