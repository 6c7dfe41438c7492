import { hostname } from "node:os";

/** Who holds an embedded database folder, as its lock's note records it (db/folder-lock.ts). */
export interface FolderHolder {
  pid: number;
  hostname: string;
  /** What the process is, in words a person recognises ("the app server", "playground user list"). */
  command: string;
  since: string;
  /** Where the holder answers HTTP, when it is the app (`http://localhost:3000`). */
  address?: string;
}

/**
 * An embedded database folder held by another process (or already by this
 * one): the message names the folder, the holder and what to do instead.
 */
export class FolderInUseError extends Error {
  readonly code = "folder_in_use";
  constructor(
    readonly folder: string,
    readonly holder: FolderHolder | null,
  ) {
    super(describeRefusal(folder, holder));
    this.name = "FolderInUseError";
  }
  /** By its code, not class identity: a server bundle may load this module twice. */
  static isInstance(error: unknown): error is FolderInUseError {
    return error instanceof Error && (error as { code?: unknown }).code === "folder_in_use";
  }
}

function describeRefusal(folder: string, holder: FolderHolder | null): string {
  const isThisProcess = holder?.pid === process.pid && holder.hostname === hostname();
  const who = isThisProcess
    ? "this process already"
    : holder
      ? `process ${holder.pid}${holder.hostname === hostname() ? "" : ` on ${holder.hostname}`} (${holder.command}${holder.since ? `, since ${holder.since}` : ""})`
      : "another process";
  return [
    `The embedded database ${folder} is in use by ${who}.`,
    "Only one process at a time may open a PGlite folder: a second one would corrupt it.",
    "Stop that process first; or, while the app runs, use its HTTP API (the CLI's account, policy,",
    `export, archive and delete commands do, with --server ${holder?.address ?? "<the app's address, such as http://localhost:3000>"}`,
    "and an API token in PLAYGROUND_TOKEN; the app applies its migrations itself as it starts); or",
    "put the app and its tools on a Postgres server (DATABASE_URL), which any number of processes share.",
  ].join(" ");
}
