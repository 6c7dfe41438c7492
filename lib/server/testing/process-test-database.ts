import type { DatabaseHandle } from "@/db/client";
import { openTestDatabase } from "@/db/testing/test-database";

type ProcessGlobals = typeof globalThis & {
  toolPlaygroundDatabase?: Promise<DatabaseHandle>;
  toolPlaygroundService?: unknown;
  toolPlaygroundAuth?: unknown;
};

/**
 * Gives the process-wide database (the one routes and server actions use) a
 * fresh test database, before any of them is imported. Returns the clean-up,
 * which forgets the database and the run service and auth built on it, then
 * closes it.
 */
export async function installProcessTestDatabase(): Promise<{
  handle: DatabaseHandle;
  uninstall(): Promise<void>;
}> {
  const globals = globalThis as ProcessGlobals;
  const opening = openTestDatabase();
  globals.toolPlaygroundDatabase = opening;
  const handle = await opening;
  return {
    handle,
    async uninstall() {
      delete globals.toolPlaygroundDatabase;
      delete globals.toolPlaygroundService;
      delete globals.toolPlaygroundAuth;
      await handle.close();
    },
  };
}
