import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { ADMIN_STORAGE_STATE, E2E_ADMIN } from "./e2e/support/accounts";

// Debian's Chromium where it is installed (these machines cannot download
// Playwright's own build); elsewhere Playwright's bundled Chromium.
const SYSTEM_CHROMIUM = "/usr/bin/chromium";

/** A port nothing listens on now: the OS picks it (a fixed port fails whenever something else holds it). */
function findFreePort(): number {
  const script =
    "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  return Number(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}

// Chosen once, in the runner's process: its workers inherit the variable, so they load the same port.
process.env.E2E_PORT ||= String(findFreePort());
const port = Number(process.env.E2E_PORT);
// A stand-in model endpoint (e2e/support/fake-model-server.mjs), configured on the server as "fake".
process.env.E2E_FAKE_MODEL_PORT ||= String(findFreePort());
const fakeModelPort = Number(process.env.E2E_FAKE_MODEL_PORT);
const baseURL = `http://127.0.0.1:${port}`;
// Where the fixture MCP server keeps its notes and reads a changed description from (e2e/27).
// It also holds the reference memory server's file; e2e/support/global-teardown.ts removes both.
if (!process.env.E2E_MCP_FIXTURE_DIR) {
  process.env.E2E_MCP_FIXTURE_DIR = mkdtempSync(path.join(tmpdir(), "e2e-mcp-notes-"));
  process.env.E2E_MCP_FIXTURE_DIR_IS_OURS = "1";
}
const fixtureDir = process.env.E2E_MCP_FIXTURE_DIR;

// The e2e server uses the Postgres server when DATABASE_URL is set, otherwise a
// throwaway in-memory PGlite, so a test run never touches the developer's data.
const serverEnv = {
  NEXT_TELEMETRY_DISABLED: "1",
  PGLITE_DATA_DIR: process.env.DATABASE_URL ? "" : "memory://",
  PLAYGROUND_FAULTS: "1",
  // The demos sign in as this administrator, seeded when the database has no user.
  PLAYGROUND_ADMIN_EMAIL: E2E_ADMIN.email,
  PLAYGROUND_ADMIN_PASSWORD: E2E_ADMIN.password,
  PLAYGROUND_MODELS: JSON.stringify({
    fake: { baseURL: `http://127.0.0.1:${fakeModelPort}/v1`, model: "fake-model", maxRetries: 0 },
  }),
  // The reference MCP memory server over stdio, as an operator would configure it; and the test
  // fixture server (lib/server/mcp/testing), whose tool definitions a test can change.
  PLAYGROUND_MCP_SERVERS: JSON.stringify({
    notes: {
      transport: {
        kind: "stdio",
        command: process.execPath,
        args: [path.join(process.cwd(), "lib/server/mcp/testing/fixture-mcp-server.mjs")],
        env: { FIXTURE_DIR: fixtureDir },
      },
      trust: "trusted",
    },
    memory: {
      transport: {
        kind: "stdio",
        command: process.execPath,
        args: [path.join(process.cwd(), "node_modules/@modelcontextprotocol/server-memory/dist/index.js")],
        env: { MEMORY_FILE_PATH: path.join(fixtureDir, "memory.jsonl") },
      },
      trust: "trusted",
    },
  }),
};
const chromium = {
  ...devices["Desktop Chrome"],
  launchOptions: {
    executablePath: existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  },
};
// Specs that share nothing with the suite's server (they start servers of their own on databases of
// their own, or read the build's output), so they run beside the others, in a second worker.
// e2e/17 is not one: its servers share the Postgres database with the suite's server.
const OWN_SERVER_SPECS =
  /\/(16-recovering|24-build-traces|26-dev-server-stays-put|30-one-process-per-folder)\.spec\.ts$/;
// The build runs where it could do harm (a held embedded folder, an empty Postgres database), for e2e/24.
const build = process.env.E2E_SKIP_BUILD ? "" : "node e2e/support/build-beside-data.mjs && ";

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results",
  globalTeardown: "./e2e/support/global-teardown.ts",
  fullyParallel: false,
  // Two lanes (see projects): the demos on the suite's server one at a time, and beside them the specs
  // that start servers of their own. `--workers=1` runs everything in one lane.
  workers: 2,
  // The base budget of a test: page loads, clicks and waits on a busy machine. Heavy steps (a server
  // start, axe over a page, a screenshot) add their own budget as they begin (e2e/support/budget.ts).
  timeout: 60_000,
  // A wait on an outcome, not a pause: a passing assertion returns as soon as it holds.
  expect: { timeout: 15_000 },
  // No retries: a spec that passes only on a second try is a failing spec.
  retries: 0,
  // CI names a JSON file (PLAYWRIGHT_JSON_OUTPUT_FILE) whose counts .ci/run adds up.
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_FILE ? [["list"], ["json"]] : "list",
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    // Signs in once as the seeded administrator; every demo starts signed in as them.
    { name: "sign-in", testMatch: /auth\.setup\.ts$/, use: chromium },
    {
      name: "chromium",
      dependencies: ["sign-in"],
      testIgnore: OWN_SERVER_SPECS,
      // One spec at a time: they share the server's state (armed faults, dropped streams, the inbox's
      // waiting runs, the audit's rows), and a demo must not see another's.
      workers: 1,
      use: { ...chromium, storageState: ADMIN_STORAGE_STATE },
    },
    {
      name: "own-servers",
      testMatch: OWN_SERVER_SPECS,
      workers: 1,
      use: chromium,
    },
  ],
  webServer: [
    {
      command: `node e2e/support/fake-model-server.mjs ${fakeModelPort}`,
      port: fakeModelPort,
      reuseExistingServer: false,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      command: `${build}node_modules/.bin/next start -p ${port}`,
      url: `${baseURL}/api/health`,
      env: serverEnv,
      // Waits for the server to answer; with the build in front of it that is minutes, many on a busy
      // machine (a build under a load of 24 outlasted 4 minutes), so the bound is a backstop only.
      timeout: build ? 1_200_000 : 240_000,
      reuseExistingServer: false,
      stdout: "ignore",
      stderr: "pipe",
    },
  ],
});
