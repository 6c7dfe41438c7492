import "server-only";

/**
 * What a server process holds once and every route, action and page shares: the database
 * handle, the logger, the metrics, the open streams, the sign-in limits, the pattern check
 * worker, and what server-context.ts composes on them (auth, the run service, MCP connections,
 * the background work). Each part is named here, built by its own module on first use, and
 * kept in the process's ONE slot on globalThis (docs/architecture.md#one-composition-root);
 * lib/server/process-parts.test.ts fails if another slot appears.
 *
 * A leaf: it imports nothing of the host, so the logger or the database can keep their part
 * here without an import cycle through the modules that compose them.
 */
export type ProcessPartName =
  | "database"
  | "logger"
  | "metrics"
  | "open-streams"
  | "sign-in-limits"
  | "pattern-check-worker"
  | "identity-caches"
  | "finished-run-counts"
  | "server-context";

// The one slot on globalThis: Next may load a module more than once per process (each route
// and action bundle gets its own copy), and every copy must hand out the same parts.
const globalForServer = globalThis as typeof globalThis & {
  toolPlaygroundServer?: Map<ProcessPartName, unknown>;
};

function parts(): Map<ProcessPartName, unknown> {
  globalForServer.toolPlaygroundServer ??= new Map();
  return globalForServer.toolPlaygroundServer;
}

/** The process's part `name`, built with `build` the first time anyone asks for it. */
export function processPart<T>(name: ProcessPartName, build: () => T): T {
  const built = parts();
  if (!built.has(name)) built.set(name, build());
  return built.get(name) as T;
}

/** The process's part `name` if it has been built, without building it. */
export function builtProcessPart<T>(name: ProcessPartName): T | undefined {
  return parts().get(name) as T | undefined;
}

/** Puts `value` in place of part `name` (undefined forgets it: the next use builds it again). */
export function replaceProcessPart<T>(name: ProcessPartName, value: T | undefined): void {
  if (value === undefined) parts().delete(name);
  else parts().set(name, value);
}
