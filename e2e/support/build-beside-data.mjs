// Builds the app for the e2e run (`next build`) where a build could do harm, so that e2e/24 can
// check it did none:
// - the embedded database's default folder (.data/pglite) has a file in it, so the build's traces
//   show whether they list it (on a clean clone the folder does not exist, and a tracer lists only
//   files that exist); a probe made here is removed afterwards, a developer's own folder left alone;
// - PGLITE_DATA_DIR names a folder that another process (a worker) holds, with a user in it;
// - DATABASE_URL names an empty database made for the build, when a Postgres server is at hand
//   (the suite's DATABASE_URL or TEST_DATABASE_URL, or E2E_BUILD_POSTGRES_URL).
// Then it records what it found in .next/e2e-build-check.json: whether the holder still held the
// folder, whether its user is still there, what the build printed about it, and which tables the
// empty database has now.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";

const USER = "build-check@e2e.test";
const environment = (extra) => {
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extra };
  for (const [key, value] of Object.entries(extra)) if (value === undefined) delete env[key];
  return env;
};
const cli = (...args) =>
  spawnSync(
    process.execPath,
    ["--conditions=react-server", "bin/run-bundled.mjs", "bin/playground.ts", ...args],
    {
      encoding: "utf8",
      env: environment({ DATABASE_URL: undefined, PLAYGROUND_NEW_PASSWORD: "build-check-password" }),
    },
  );

const probeFolder = path.join(".data", "pglite");
const madeProbe = !existsSync(probeFolder);
if (madeProbe) {
  mkdirSync(probeFolder, { recursive: true });
  writeFileSync(path.join(probeFolder, "trace-probe.json"), "{}\n");
}

// A folder held by a worker, with a user in it.
const heldFolder = path.join(mkdtempSync(path.join(tmpdir(), "tp-build-held-")), "pglite");
const seeded = cli("user", "add", USER, "--role", "viewer", "--db", heldFolder);
if (seeded.status !== 0) throw new Error(`could not seed ${heldFolder}: ${seeded.stderr}`);
const holder = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "bin/worker.ts"], {
  env: environment({ DATABASE_URL: undefined, PGLITE_DATA_DIR: heldFolder }),
  stdio: ["ignore", "ignore", "pipe"],
});
await new Promise((resolve, reject) => {
  let stderr = "";
  holder.stderr.on("data", (chunk) => {
    stderr += chunk;
    if (stderr.includes("worker: started")) resolve();
  });
  holder.once("exit", (code) =>
    reject(new Error(`the worker holding ${heldFolder} exited (${code}):\n${stderr}`)),
  );
});

// An empty database, when there is a Postgres server to make one on.
const serverUrl =
  process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || process.env.E2E_BUILD_POSTGRES_URL;
const emptyDatabase = `tp_build_check_${process.pid}`;
const admin = serverUrl ? postgres(serverUrl, { max: 1, onnotice: () => {} }) : null;
let emptyUrl;
if (admin) {
  await admin.unsafe(`create database "${emptyDatabase}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${emptyDatabase}`;
  emptyUrl = url.toString();
}

const build = spawn(process.execPath, [path.join("node_modules", "next", "dist", "bin", "next"), "build"], {
  env: environment({ PGLITE_DATA_DIR: heldFolder, DATABASE_URL: emptyUrl, E2E_BUILD_SKIP_TYPECHECK: "1" }),
  stdio: ["ignore", "pipe", "pipe"],
});
let output = "";
for (const [stream, target] of [
  [build.stdout, process.stdout],
  [build.stderr, process.stderr],
]) {
  stream.on("data", (chunk) => {
    output += chunk;
    target.write(chunk);
  });
}
const buildStatus = await new Promise((resolve) => build.once("exit", (code) => resolve(code ?? 1)));
if (madeProbe) rmSync(probeFolder, { recursive: true, force: true });

const lockNote = (() => {
  try {
    return JSON.parse(readFileSync(`${heldFolder}.lock.json`, "utf8"));
  } catch {
    return null;
  }
})();
const holderStillHeldIt = holder.exitCode === null && lockNote?.pid === holder.pid;
const stopped = new Promise((resolve) => holder.once("exit", resolve));
holder.kill("SIGTERM");
await stopped;
const listed = cli("user", "list", "--db", heldFolder);
let tables = null;
if (admin && emptyUrl) {
  const probe = postgres(emptyUrl, { max: 1, onnotice: () => {} });
  tables = (
    await probe`select table_name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')`
  ).map((row) => row.table_name);
  await probe.end({ timeout: 5 });
  await admin.unsafe(`drop database if exists "${emptyDatabase}" with (force)`);
  await admin.end({ timeout: 5 });
}
rmSync(path.dirname(heldFolder), { recursive: true, force: true });

if (existsSync(".next")) {
  writeFileSync(
    path.join(".next", "e2e-build-check.json"),
    `${JSON.stringify(
      {
        heldFolder: {
          holderStillHeldIt,
          opensAfterwards: listed.status === 0,
          usersAfterwards:
            listed.status === 0 ? JSON.parse(listed.stdout).map((user) => user.email) : listed.stderr,
          buildOutputMentionsIt: output.includes(heldFolder),
        },
        emptyPostgresDatabase: tables === null ? null : { tablesAfterwards: tables },
      },
      null,
      2,
    )}\n`,
  );
}
process.exit(buildStatus);
