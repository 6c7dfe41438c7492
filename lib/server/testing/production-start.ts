// How a production server starts (package.json's `start`), for the suites and the load generator
// that start their own: the app's server (bin/start-server.ts: Next's build, with the decision and
// the agent API on the API lane) under Node with V8's helper threads sized to the machine. Node's
// default is four of them whatever the machine; on two cores four collector helpers working at once
// kept the server's main thread and Postgres from a core, and that wait was most of the tail of a
// decision over HTTP (docs/performance.md#v8s-helper-threads-sized-to-the-machine-2026-12-05-noon).

/** `0`: Node picks the pool from the cores it may use (one fewer than their number, at least one). */
export const SERVER_NODE_FLAGS = ["--v8-pool-size=0"] as const;

/** The production server's entry, which Node runs as TypeScript itself. */
export const SERVER_ENTRY = "bin/start-server.ts";

/** The production server on `port` as `npm start` runs it: the program and its arguments for `spawn`. */
export function productionStart(
  port: number,
  extra: readonly string[] = [],
): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [...SERVER_NODE_FLAGS, SERVER_ENTRY, "-p", String(port), ...extra],
  };
}
