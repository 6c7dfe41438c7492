import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

// A PGlite folder admits one process: two write as if alone and corrupt it (a CLI command beside
// `npm run dev` lost approvals and runs that way). The commands themselves, started as people start
// them, on one folder at once: the second refuses at once, names the folder and who holds it, and the
// data is intact afterwards. (The app server beside each of them: e2e/30; a build: e2e/24.)

const children: ChildProcess[] = [];
const folders: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A folder of its own for a test's database, removed afterwards. */
function newFolder(prefix: string): string {
  const parent = mkdtempSync(path.join(tmpdir(), prefix));
  folders.push(parent);
  return parent;
}

const environment = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extra };
  delete env.DATABASE_URL;
  return env;
};

// What `npm run playground` and `npm run worker` run, started directly so each pid is the holder's.
const CLI = ["--conditions=react-server", "bin/run-bundled.mjs", "bin/playground.ts"];
const WORKER = ["--conditions=react-server", "--import", "tsx", "bin/worker.ts"];

function cli(folder: string, ...args: string[]) {
  return spawnSync(process.execPath, [...CLI, ...args, "--db", folder], {
    encoding: "utf8",
    env: environment({ PLAYGROUND_NEW_PASSWORD: "ada-pass-1" }),
  });
}

/** A long-lived process started in the background; resolves once it says (on stderr) that it has the database open. */
async function startHolder(args: string[], env: NodeJS.ProcessEnv, ready: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const deadline = Date.now() + 90_000;
  while (!stderr.includes(ready)) {
    if (child.exitCode !== null) throw new Error(`the holder exited with ${child.exitCode}:\n${stderr}`);
    if (Date.now() > deadline) throw new Error(`the holder never took the folder:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return child;
}

function expectClearRefusal(
  result: { status: number | null; stderr: string },
  folder: string,
  holder: string,
) {
  expect(result.status).toBe(1);
  expect(result.stderr).toContain(`The embedded database ${folder} is in use by process ${holder}`);
  expect(result.stderr).toContain("Stop that process first");
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

/** A scenario that keeps its run (and so the CLI running it) busy for minutes. */
function slowScenarioFile(): string {
  const file = path.join(newFolder("tp-slow-"), "slow.json");
  const turns = Array.from({ length: 300 }, (_, index) => ({
    delayMs: 1_000,
    calls: [{ name: "memory_set", arguments: { key: `k${index}`, value: `v${index}` } }],
  }));
  const finish = { calls: [{ name: "finish", arguments: { summary: "done" } }] };
  writeFileSync(
    file,
    JSON.stringify({ name: "holds the folder", model: { kind: "scripted", turns: [...turns, finish] } }),
  );
  return file;
}

// Each test starts five or six processes that each load the CLI or the worker and open PGlite:
// seconds each when the machine is idle, up to a minute each on a busy one.
describe("one process per embedded database folder", () => {
  it("CLI beside CLI, and the worker beside the CLI: refused at once, and the folder's data intact after the holder is killed", async () => {
    const folder = path.join(newFolder("tp-one-process-"), "pglite");
    expect(cli(folder, "user", "add", "ada@example.com", "--role", "approver").status).toBe(0);

    const running = await startHolder(
      [...CLI, "run", slowScenarioFile(), "--db", folder],
      environment(),
      'running "holds the folder"',
    );
    const holder = `${running.pid} (playground run`;
    expectClearRefusal(cli(folder, "user", "list"), folder, holder);
    expectClearRefusal(cli(folder, "export", "00000000-0000-4000-8000-000000000000"), folder, holder);
    const worker = spawnSync(process.execPath, WORKER, {
      encoding: "utf8",
      env: environment({ PGLITE_DATA_DIR: folder }),
    });
    expect(worker.status).toBe(1);
    expect(worker.stderr).toContain(
      `worker: could not start: The embedded database ${folder} is in use by process ${holder}`,
    );
    // None of them waited for the holder to end.
    expect(running.exitCode).toBeNull();

    // A crash of the holder frees the folder within the lock's staleness, and nothing it held is lost.
    const gone = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await gone;
    // (It waits for the lock to go stale, up to 10 s, unless it already has: db/folder-lock.test.ts.)
    const listed = cli(folder, "user", "list");
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ email: "ada@example.com", role: "approver" }]);
  }, 480_000);

  it("the CLI beside the worker: refused, naming the worker; the folder opens again once the worker stops", async () => {
    const folder = path.join(newFolder("tp-one-process-"), "pglite");
    expect(cli(folder, "user", "add", "ada@example.com", "--role", "approver").status).toBe(0);

    const worker = await startHolder(WORKER, environment({ PGLITE_DATA_DIR: folder }), "worker: started");
    expectClearRefusal(
      cli(folder, "token", "create", "ada@example.com", "--name", "ci-bot"),
      folder,
      `${worker.pid} (npm run worker`,
    );
    const stopped = new Promise<number | null>((resolve) => worker.once("exit", resolve));
    worker.kill("SIGTERM");
    expect(await stopped).toBe(0);

    const created = cli(folder, "token", "create", "ada@example.com", "--name", "ci-bot");
    expect(created.stderr).toBe("");
    expect(created.stdout).toMatch(/^tp_\w{20,}\n$/);
    expect(JSON.parse(cli(folder, "user", "list").stdout)).toMatchObject([{ email: "ada@example.com" }]);
  }, 480_000);
});
