import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { adminStorageState, E2E_ADMIN, LINK_ALONE_RECIPIENT, LINK_RECIPIENT } from "./e2e/support/accounts";
import { KEEP_ALIVE_MS } from "./e2e/support/keep-alive";
import { SERVER_ENTRY, SERVER_NODE_FLAGS } from "./lib/server/testing/production-start";

// Debian's Chromium where it is installed (these machines cannot download
// Playwright's own build); elsewhere Playwright's bundled Chromium.
const SYSTEM_CHROMIUM = "/usr/bin/chromium";

/** A port nothing listens on now: the OS picks it (a fixed port fails whenever something else holds it). */
function findFreePort(): number {
  const script =
    "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  return Number(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}

// Chosen once, in the runner's process: its workers inherit the variables, so they load the same ports.
// The suite's specs run against two servers at once, each on a database of its own: the demos' lane
// and the checks' lane (see projects). E2E_PORT is the demos' server, E2E_CHECKS_PORT the checks'.
process.env.E2E_PORT ||= String(findFreePort());
process.env.E2E_CHECKS_PORT ||= String(findFreePort());
const demosURL = `http://127.0.0.1:${Number(process.env.E2E_PORT)}`;
const checksURL = `http://127.0.0.1:${Number(process.env.E2E_CHECKS_PORT)}`;
// A stand-in model endpoint (e2e/support/fake-model-server.mjs), configured on the servers as "fake".
process.env.E2E_FAKE_MODEL_PORT ||= String(findFreePort());
const fakeModelPort = Number(process.env.E2E_FAKE_MODEL_PORT);
// A mail server that keeps what it is sent and lists it over HTTP (e2e/support/smtp-sink.mjs), the
// servers' e-mail channel "e2e-mail" (e2e/43).
process.env.E2E_SMTP_PORT ||= String(findFreePort());
process.env.E2E_SMTP_SINK_PORT ||= String(findFreePort());
const smtpPort = Number(process.env.E2E_SMTP_PORT);
const smtpSinkPort = Number(process.env.E2E_SMTP_SINK_PORT);
// Where the fixture MCP servers keep their notes and read a changed description from (e2e/27): the
// demos' server uses this folder, the checks' server a folder inside it, so a description e2e/27
// changes is never what a check lists. It also holds the reference memory server's files;
// e2e/support/global-teardown.ts removes it.
if (!process.env.E2E_MCP_FIXTURE_DIR) {
  process.env.E2E_MCP_FIXTURE_DIR = mkdtempSync(path.join(tmpdir(), "e2e-mcp-notes-"));
  process.env.E2E_MCP_FIXTURE_DIR_IS_OURS = "1";
}
const demosFixtureDir = process.env.E2E_MCP_FIXTURE_DIR;
const checksFixtureDir = path.join(demosFixtureDir, "checks-lane");
mkdirSync(checksFixtureDir, { recursive: true });

// On a Postgres server (DATABASE_URL) the demos' server uses that database and the checks' server one
// made fresh beside it (e2e/support/fresh-database.mjs); otherwise each uses a throwaway in-memory
// PGlite, so a test run never touches the developer's data.
const checksDatabaseUrl = process.env.DATABASE_URL
  ? siblingDatabaseUrl(process.env.DATABASE_URL, "e2e_checks")
  : "";
// For a check that starts a server of its own on its lane's database (e2e/support/production-server.ts).
process.env.E2E_CHECKS_DATABASE_URL = checksDatabaseUrl;

function siblingDatabaseUrl(url: string, suffix: string): string {
  const sibling = new URL(url);
  sibling.pathname = `${sibling.pathname}_${suffix}`;
  return sibling.toString();
}

/** What one of the suite's servers is told: its database and its MCP fixture folder. */
function serverEnv(lane: { databaseUrl: string; fixtureDir: string }): Record<string, string> {
  return {
    NEXT_TELEMETRY_DISABLED: "1",
    DATABASE_URL: lane.databaseUrl,
    PGLITE_DATA_DIR: lane.databaseUrl ? "" : "memory://",
    PLAYGROUND_FAULTS: "1",
    // The demos sign in as this administrator, seeded when the database has no user.
    PLAYGROUND_ADMIN_EMAIL: E2E_ADMIN.email,
    PLAYGROUND_ADMIN_PASSWORD: E2E_ADMIN.password,
    PLAYGROUND_MODELS: JSON.stringify({
      fake: { baseURL: `http://127.0.0.1:${fakeModelPort}/v1`, model: "fake-model", maxRetries: 0 },
    }),
    // E-mail for one person only, whom e2e/43 adds and no other spec makes wait: every other spec's
    // waiting runs tell nobody, as without a channel. docs/notifications.md#channels
    PLAYGROUND_NOTIFICATIONS: JSON.stringify({
      "e2e-mail": {
        kind: "email",
        from: "Tool Playground <playground@e2e.test>",
        smtp: { host: "127.0.0.1", port: smtpPort },
        to: { users: [LINK_RECIPIENT.email] },
      },
      // Links that decide without a sign-in, for one person only e2e/46 adds: every other link (and
      // every page) still asks a stranger to sign in (e2e/33). docs/notifications.md#the-link-alone
      "e2e-link-alone": {
        kind: "email",
        from: "Tool Playground <playground@e2e.test>",
        smtp: { host: "127.0.0.1", port: smtpPort },
        to: { users: [LINK_ALONE_RECIPIENT.email] },
        linkAlone: true,
      },
    }),
    // The reference MCP memory server over stdio, as an operator would configure it; and the test
    // fixture server (lib/server/mcp/testing), whose tool definitions a test can change.
    PLAYGROUND_MCP_SERVERS: JSON.stringify({
      notes: {
        transport: {
          kind: "stdio",
          command: process.execPath,
          args: [path.join(process.cwd(), "lib/server/mcp/testing/fixture-mcp-server.mjs")],
          env: { FIXTURE_DIR: lane.fixtureDir },
        },
        trust: "trusted",
      },
      memory: {
        transport: {
          kind: "stdio",
          command: process.execPath,
          args: [path.join(process.cwd(), "node_modules/@modelcontextprotocol/server-memory/dist/index.js")],
          env: { MEMORY_FILE_PATH: path.join(lane.fixtureDir, "memory.jsonl") },
        },
        trust: "trusted",
      },
    }),
  };
}
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
// Specs that share nothing with the suite's servers (they start servers of their own on databases of
// their own, or read the build's output), so they run beside the others.
const OWN_SERVER_SPECS =
  /\/(16-recovering|24-build-traces|26-dev-server-stays-put|30-one-process-per-folder|48-api-lane)\.spec\.ts$/;
// e2e/17 starts instances on the demos' server's Postgres database (DATABASE_URL), so it runs in the
// demos' lane.
const SHARES_THE_DEMOS_DATABASE = /\/17-chaos\.spec\.ts$/;
// The build runs where it could do harm (a held embedded folder, an empty Postgres database), for e2e/24.
const build = process.env.E2E_SKIP_BUILD ? "" : "node e2e/support/build-beside-data.mjs && ";
// As `npm start` runs it (lib/server/testing/production-start.ts), with the suite's keep-alive.
const start = (port: string | undefined) =>
  `node ${SERVER_NODE_FLAGS.join(" ")} ${SERVER_ENTRY} -p ${port} --keepAliveTimeout ${KEEP_ALIVE_MS}`;

export default defineConfig({
  // e2e/demos/: flows a person can watch (waves, barriers, the inbox, record and replay…);
  // e2e/checks/: regression guards (security headers, strangers, layout, chaos…).
  testDir: "./e2e",
  outputDir: "./test-results",
  globalTeardown: "./e2e/support/global-teardown.ts",
  fullyParallel: false,
  // Three lanes (see projects), two at a time: the demos on their server, the checks on theirs, and the
  // specs that start servers of their own. Within a lane specs run one at a time: they share their
  // server's state (armed faults, dropped streams, the inbox's waiting runs, the audit's rows), and a
  // demo must not see another's. `--workers=1` runs everything one after another.
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
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    // Sign in once per server as its seeded administrator; every spec of the lane starts signed in.
    {
      name: "sign-in-demos",
      testMatch: /auth\.setup\.ts$/,
      use: { ...chromium, baseURL: demosURL },
      metadata: { adminStorageState: adminStorageState("demos") },
    },
    {
      name: "sign-in-checks",
      testMatch: /auth\.setup\.ts$/,
      use: { ...chromium, baseURL: checksURL },
      metadata: { adminStorageState: adminStorageState("checks") },
    },
    {
      name: "demos",
      dependencies: ["sign-in-demos"],
      testMatch: [/\/demos\/.*\.spec\.ts$/, SHARES_THE_DEMOS_DATABASE],
      workers: 1,
      use: { ...chromium, baseURL: demosURL, storageState: adminStorageState("demos") },
    },
    {
      name: "checks",
      dependencies: ["sign-in-checks"],
      testMatch: /\/checks\/.*\.spec\.ts$/,
      testIgnore: [OWN_SERVER_SPECS, SHARES_THE_DEMOS_DATABASE],
      workers: 1,
      use: { ...chromium, baseURL: checksURL, storageState: adminStorageState("checks") },
    },
    {
      name: "own-servers",
      // Queued behind the two servers' lanes (a phase of its own after the sign-ins), so the checks,
      // the longest lane, start at once and this one takes the worker the demos leave: first, it held
      // a worker for its 8 minutes while the checks waited (CI beside a CPU hog: 32 minutes).
      dependencies: ["sign-in-demos"],
      testMatch: OWN_SERVER_SPECS,
      workers: 1,
      use: chromium,
    },
  ],
  // Started in this order, each once the one before answers: the checks' server starts from the build
  // the demos' server waited for.
  webServer: [
    {
      command: `node e2e/support/fake-model-server.mjs ${fakeModelPort}`,
      port: fakeModelPort,
      reuseExistingServer: false,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      command: `node e2e/support/smtp-sink.mjs ${smtpPort} ${smtpSinkPort}`,
      url: `http://127.0.0.1:${smtpSinkPort}/messages`,
      reuseExistingServer: false,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      command: `${build}${start(process.env.E2E_PORT)}`,
      url: `${demosURL}/api/health`,
      env: serverEnv({ databaseUrl: process.env.DATABASE_URL ?? "", fixtureDir: demosFixtureDir }),
      // Waits for the server to answer; with the build in front of it that is minutes, many on a busy
      // machine (a build under a load of 24 outlasted 4 minutes), so the bound is a backstop only.
      timeout: build ? 1_200_000 : 240_000,
      reuseExistingServer: false,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      command: `${checksDatabaseUrl ? "node e2e/support/fresh-database.mjs && " : ""}${start(process.env.E2E_CHECKS_PORT)}`,
      url: `${checksURL}/api/health`,
      env: serverEnv({ databaseUrl: checksDatabaseUrl, fixtureDir: checksFixtureDir }),
      timeout: 240_000,
      reuseExistingServer: false,
      stdout: "ignore",
      stderr: "pipe",
    },
  ],
});
