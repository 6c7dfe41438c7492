// How a production server starts (package.json's `start`, docs/operations.md#v8s-helper-threads), for
// the suites and the load generator that start their own: Node with V8's helper threads sized to
// the machine. Node's default is four of them whatever the machine; on two cores four collector
// helpers working at once kept the server's main thread and Postgres from a core, and that wait
// was most of the tail of a decision over HTTP (docs/performance.md#v8s-helper-threads-sized-to-the-machine-2026-12-05-noon).
import path from "node:path";

/** `0`: Node picks the pool from the cores it may use (one fewer than their number, at least one). */
export const SERVER_NODE_FLAGS = ["--v8-pool-size=0"] as const;

/** Next's own command-line entry, run by `node` itself so that the flags above reach it. */
export const NEXT_BIN = path.join("node_modules", "next", "dist", "bin", "next");

/** `next start` on `port` as `npm start` runs it: the program and its arguments for `spawn`. */
export function nextStart(port: number, extra: readonly string[] = []): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [...SERVER_NODE_FLAGS, NEXT_BIN, "start", "-p", String(port), ...extra],
  };
}
