import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

/**
 * What one CLI process may take, start to exit, on a busy machine (the bundle's start and its
 * database): each test's budget is this times the processes it starts. Idle, one takes 1–3 s.
 */
const PER_PROCESS_MS = 40_000;
export const processes = (count: number) => count * PER_PROCESS_MS;

// What `npm run playground` runs (package.json), started directly: npm's own start-up would only add
// to every process. One test goes through npm itself, for what it prints (bin/playground-run.test.ts).
const CLI = ["--conditions=react-server", "bin/run-bundled.mjs", "bin/playground.ts"];

export interface CliOptions {
  /** The embedded database folder (`--db`); without it, the command's own default. */
  db?: string;
  env?: Record<string, string>;
  /** Through `npm run -s playground --`, exactly as the README gives it. */
  throughNpm?: boolean;
}

/**
 * Runs `playground <args>` and waits for it to exit. It talks to the Postgres server named by
 * TEST_DATABASE_URL when the tests have one and no folder is given (`env` may still say otherwise),
 * else to the folder, else to no database (a headless run's in-memory store).
 */
export function runCli(args: string[], options: CliOptions = {}): SpawnSyncReturns<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  if (process.env.TEST_DATABASE_URL && !options.db) env.DATABASE_URL = process.env.TEST_DATABASE_URL;
  else delete env.DATABASE_URL;
  Object.assign(env, options.env);
  const allArgs = options.db ? [...args, "--db", options.db] : args;
  return options.throughNpm
    ? spawnSync("npm", ["run", "--silent", "playground", "--", ...allArgs], { encoding: "utf8", env })
    : spawnSync(process.execPath, [...CLI, ...allArgs], { encoding: "utf8", env });
}

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A folder of the test file's own in the temporary directory, removed when the file's tests end. */
export function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  folders.push(folder);
  return folder;
}

/** Writes a scenario file to a temporary folder and returns its path. */
export function writeScenario(content: string): string {
  const file = path.join(temporaryFolder("tp-cli-"), "scenario.json");
  writeFileSync(file, content);
  return file;
}
