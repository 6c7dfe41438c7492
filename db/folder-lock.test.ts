import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FolderInUseError } from "./folder-in-use-error";
import { type FolderLock, lockFolder } from "./folder-lock";

// The lock itself, between real processes: whoever holds a folder keeps it, a second process is
// refused at once and told who holds it, and a holder that dies without letting go (kill -9)
// leaves a lock that goes stale and is taken over, never one that blocks the folder for good.
// (Which commands take it, and what happens to the data, is in bin/one-process-per-folder.test.ts.)

const children: ChildProcess[] = [];
const locks: FolderLock[] = [];
const parents: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const lock of locks.splice(0)) await lock.release();
  for (const parent of parents.splice(0)) rmSync(parent, { recursive: true, force: true });
});

function newFolder(): string {
  const parent = mkdtempSync(path.join(tmpdir(), "tp-lock-"));
  parents.push(parent);
  return path.join(parent, "pglite");
}

/** Another process that takes the folder's lock and keeps it until killed; resolves once it holds it. */
async function holdInAnotherProcess(folder: string, address?: string): Promise<ChildProcess> {
  const script = `
    const { lockFolder } = await import(${JSON.stringify(path.resolve("db/folder-lock.ts"))});
    await lockFolder(${JSON.stringify(folder)}, { command: "the holder in a test", address: ${JSON.stringify(address)}, onLost() {} });
    process.stdout.write("held\\n");
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("held")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the holder exited with ${code}`)));
  });
  return child;
}

async function lockHere(folder: string, waits: string[] = []): Promise<FolderLock> {
  const lock = await lockFolder(folder, {
    command: "this test",
    onLost: () => {},
    onWait: (message) => waits.push(message),
  });
  locks.push(lock);
  return lock;
}

describe("lockFolder", () => {
  it("refuses a folder another live process holds, at once, naming the folder, the holder and what to do", async () => {
    const folder = newFolder();
    const holder = await holdInAnotherProcess(folder);
    const started = Date.now();
    const refusal = await lockHere(folder).catch((error: unknown) => error);
    // At once: not after waiting out the 10 s staleness, as for a holder that is gone.
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(FolderInUseError.isInstance(refusal)).toBe(true);
    const { message, holder: recorded } = refusal as FolderInUseError;
    expect(recorded).toMatchObject({
      pid: holder.pid,
      hostname: hostname(),
      command: "the holder in a test",
    });
    expect(message).toContain(folder);
    expect(message).toContain(`process ${holder.pid} (the holder in a test, since `);
    expect(message).toMatch(/Stop that process first/);
    // The holder said no address: the message says what to put there.
    expect(message).toContain("--server <the app's address, such as http://localhost:3000>");
    expect(message).toContain("DATABASE_URL");
  });

  it("names the app's own address when the app holds the folder", async () => {
    const folder = newFolder();
    await holdInAnotherProcess(folder, "http://localhost:4992");
    const refusal = await lockHere(folder).catch((error: unknown) => error);
    expect((refusal as FolderInUseError).holder?.address).toBe("http://localhost:4992");
    expect((refusal as Error).message).toContain("with --server http://localhost:4992 and an API token");
  });

  it("takes over the lock of a holder killed with kill -9, once it has gone stale", async () => {
    const folder = newFolder();
    const holder = await holdInAnotherProcess(folder);
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("exit", resolve));
    const waits: string[] = [];
    const started = Date.now();
    await lockHere(folder, waits);
    // The lock is refreshed every 5 s and stale after 10 s without a refresh.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(waits).toEqual([
      expect.stringContaining(`left locked by pid ${holder.pid} (the holder in a test) that is gone`),
    ]);
  }, 30_000);

  it("takes over from a holder killed but not yet reaped by its parent (a zombie answers kill(pid, 0))", async () => {
    const folder = newFolder();
    // The holder's parent is a shell that execs into sleep, which never reaps its children.
    const script = `
      const { lockFolder } = await import(${JSON.stringify(path.resolve("db/folder-lock.ts"))});
      await lockFolder(${JSON.stringify(folder)}, { command: "the holder in a test", onLost() {} });
      process.stdout.write("held\\n");
      setInterval(() => {}, 1000);`;
    const parent = spawn(
      "sh",
      ["-c", 'node --import tsx --input-type=module -e "$HOLDER" & exec sleep 600'],
      { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, HOLDER: script } },
    );
    children.push(parent);
    await new Promise<void>((resolve) => {
      parent.stdout?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("held")) resolve();
      });
    });
    const { pid } = JSON.parse(readFileSync(`${folder}.lock.json`, "utf8")) as { pid: number };
    process.kill(pid, "SIGKILL");
    while (!readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ")) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const waits: string[] = [];
    await lockHere(folder, waits);
    expect(waits).toEqual([
      expect.stringContaining(`left locked by pid ${pid} (the holder in a test) that is gone`),
    ]);
  }, 30_000);

  it("takes a lock nobody has refreshed for longer than the staleness at once, whoever it names", async () => {
    const folder = newFolder();
    mkdirSync(`${folder}.lock`, { recursive: true });
    // A pid that is alive (this very test runner), as after a crash whose pid was reused.
    writeFileSync(
      `${folder}.lock.json`,
      JSON.stringify({ pid: process.ppid, hostname: hostname(), command: "a crashed server", since: "" }),
    );
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(`${folder}.lock`, longAgo, longAgo);
    const started = Date.now();
    await lockHere(folder);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("refuses a second open of the same folder in one process, and frees it on release", async () => {
    const folder = newFolder();
    const lock = await lockHere(folder);
    const refusal = await lockHere(folder).catch((error: unknown) => error);
    expect((refusal as Error).message).toContain("is in use by this process already");
    await lock.release();
    locks.splice(locks.indexOf(lock), 1);
    expect(existsSync(`${folder}.lock`)).toBe(false);
    expect(existsSync(`${folder}.lock.json`)).toBe(false);
    await lockHere(folder);
  });
});
