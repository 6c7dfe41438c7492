import "server-only";
import { type DatabaseHandle, databaseOptionsFromEnv, openDatabase } from "@/db/client";
import { builtProcessPart, replaceProcessPart } from "@/lib/server/process-parts";

/*
 * The database as pages, routes, actions and lib/http see it: they reach the
 * store only through the host (docs/architecture.md, "The layers and their arrows").
 */
export type { DatabaseHandle, Db } from "@/db/client";
export { isTransientDatabaseError } from "@/db/database-errors";

/**
 * The process-wide database, opened (and migrated) once. PGlite takes seconds to
 * open and its data folder admits one process, so every request shares this.
 */
export function getDatabase(): Promise<DatabaseHandle> {
  if (process.env.NEXT_PHASE === "phase-production-build") {
    // `next build` runs route and page code to prerender what it can; none of it may open,
    // migrate or lock the database it would serve (nor keep a build from running beside the app).
    return Promise.reject(new Error("No database is opened while the app is being built."));
  }
  const opened = builtProcessPart<Promise<DatabaseHandle>>("database");
  if (opened) return opened;
  // `next dev`, `next start` and bin/start-server.ts set PORT before the app's code runs.
  const address =
    process.env.PORT && process.env.PORT !== "0" ? `http://localhost:${process.env.PORT}` : undefined;
  const opening = openDatabase({ ...databaseOptionsFromEnv(), command: "the app server", address });
  // A failed open is not kept: the next request tries again.
  opening.catch(() => {
    if (builtProcessPart("database") === opening) replaceProcessPart("database", undefined);
  });
  replaceProcessPart("database", opening);
  return opening;
}

/**
 * Gives the process `opening` as its database (tests install a fresh one before any route
 * loads); undefined forgets it, and the next use opens the one the environment names.
 */
export function replaceDatabase(opening: Promise<DatabaseHandle> | undefined): void {
  replaceProcessPart("database", opening);
}
