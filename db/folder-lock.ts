// One process per embedded database folder. PGlite is Postgres in a single
// process with no shared-memory locking of its own: two processes on one folder
// (the dev server and the CLI, say) each write as if alone, and the folder ends
// up corrupt. The first process to open a folder holds a lock beside it for its
// whole life; every other one is refused at once, told who holds it and what to
// do instead.
//
// The lock is proper-lockfile's: a directory `<folder>.lock` made atomically with
// mkdir, whose mtime the holder refreshes every few seconds. A holder killed with
// `kill -9` stops refreshing it, so the lock goes stale within STALE_MS and the
// next process takes it over; a lock is never trusted forever. Who holds it (pid,
// host, command, since when) is written beside it, in `<folder>.lock.json`.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import lockfile from "proper-lockfile";
import { type FolderHolder, FolderInUseError } from "./folder-in-use-error";

/** A lock not refreshed for this long belongs to a process that is gone (or frozen). */
const STALE_MS = 10_000;
/** How often the holder refreshes it (proper-lockfile's default: half the staleness). */
const REFRESH_MS = STALE_MS / 2;

export interface FolderLock {
  /** Gives the folder up: call it after the database in it is closed. */
  release(): Promise<void>;
}

export interface LockFolderOptions {
  /** What this process is, for the message another process gets. */
  command: string;
  /** Where this process answers HTTP, when it is the app: another process is told to use it. */
  address?: string | undefined;
  /**
   * Called if the lock is lost while held: its directory was removed, or another
   * process took it over because this one stopped refreshing it for STALE_MS (a
   * frozen event loop, a suspended laptop). The folder must not be written any more.
   */
  onLost(error: Error): void;
  /** Tells a person that this process waits for a dead holder's lock to go stale. */
  onWait?(message: string): void;
}

function lockPath(folder: string): string {
  return `${folder}.lock`;
}

function holderPath(folder: string): string {
  return `${folder}.lock.json`;
}

/**
 * Takes the folder's lock for this process, or refuses with a
 * {@link FolderInUseError}. When the recorded holder is gone (it crashed, or
 * was killed) this waits, at most STALE_MS and a little, for its lock to go
 * stale, then takes it; a live holder is refused at once.
 */
export async function lockFolder(folder: string, options: LockFolderOptions): Promise<FolderLock> {
  const absolute = path.resolve(folder);
  const settings = {
    lockfilePath: lockPath(absolute),
    // The folder may not exist yet (PGlite makes it); the lock is on its path.
    realpath: false,
    stale: STALE_MS,
    update: REFRESH_MS,
    onCompromised: (error: Error) => options.onLost(error),
  };
  mkdirSync(path.dirname(absolute), { recursive: true });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(absolute, settings);
  } catch (error) {
    if ((error as { code?: string }).code !== "ELOCKED") throw error;
    const holder = readHolder(absolute);
    if (holder && isHolderAlive(holder, absolute)) throw new FolderInUseError(absolute, holder);
    // Nobody is refreshing the lock: its holder ended without releasing it. Wait for it to go stale.
    options.onWait?.(
      `${absolute} was left locked by ${holder ? `pid ${holder.pid} (${holder.command})` : "a process"} that is gone; taking it over within ${Math.ceil(STALE_MS / 1000)} s`,
    );
    try {
      release = await lockfile.lock(absolute, {
        ...settings,
        retries: {
          retries: Math.ceil((STALE_MS + REFRESH_MS) / 250),
          factor: 1,
          minTimeout: 250,
          maxTimeout: 250,
        },
      });
    } catch (retryError) {
      if ((retryError as { code?: string }).code !== "ELOCKED") throw retryError;
      throw new FolderInUseError(absolute, readHolder(absolute));
    }
  }
  writeHolder(absolute, {
    pid: process.pid,
    hostname: hostname(),
    command: options.command,
    since: new Date().toISOString(),
    ...(options.address ? { address: options.address } : {}),
  });
  // proper-lockfile removes the lock itself when the process exits (not on `kill -9`); this, its note.
  const forgetHolder = () => rmSync(holderPath(absolute), { force: true });
  process.once("exit", forgetHolder);
  return {
    release: async () => {
      process.off("exit", forgetHolder);
      forgetHolder();
      await release();
    },
  };
}

/**
 * A holder is alive when its lock is being refreshed and, on this machine, its
 * process exists. (A pid reused by an unrelated process after a crash still
 * leaves the lock unrefreshed, so it is never mistaken for the holder for long.)
 */
function isHolderAlive(holder: FolderHolder, folder: string): boolean {
  let refreshedMsAgo: number;
  try {
    refreshedMsAgo = Date.now() - statSync(lockPath(folder)).mtimeMs;
  } catch {
    return false;
  }
  if (refreshedMsAgo > REFRESH_MS + 2_000) return false;
  if (holder.hostname !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(holder.pid);
}

/**
 * A process killed but not yet reaped by its parent (a zombie, on Linux) still
 * answers `kill(pid, 0)`, though it holds nothing and will never refresh the lock.
 */
function isZombie(pid: number): boolean {
  try {
    // /proc/<pid>/stat: "pid (command) state …"; the command may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    // No /proc (macOS, say): the signal's answer stands.
    return false;
  }
}

function readHolder(folder: string): FolderHolder | null {
  try {
    const holder = JSON.parse(readFileSync(holderPath(folder), "utf8")) as Partial<FolderHolder>;
    if (typeof holder.pid !== "number" || typeof holder.hostname !== "string") return null;
    return {
      pid: holder.pid,
      hostname: holder.hostname,
      command: typeof holder.command === "string" ? holder.command : "unknown",
      since: typeof holder.since === "string" ? holder.since : "",
      ...(typeof holder.address === "string" ? { address: holder.address } : {}),
    };
  } catch {
    // No holder file: it was taken a moment ago, or by a process that died before writing it.
    return null;
  }
}

function writeHolder(folder: string, holder: FolderHolder): void {
  // Written aside, then renamed: a reader never sees half a file.
  const staging = `${holderPath(folder)}.${process.pid}`;
  writeFileSync(staging, `${JSON.stringify(holder)}\n`);
  renameSync(staging, holderPath(folder));
}
