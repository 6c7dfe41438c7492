import type { DatabaseHandle } from "@/db/client";
import { openTestDatabase } from "@/db/testing/test-database";
import { replaceDatabase } from "@/lib/server/database";

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
  const opening = openTestDatabase();
  replaceDatabase(opening);
  const handle = await opening;
  return {
    handle,
    async uninstall() {
      replaceDatabase(undefined);
      // Loaded on clean-up, not with this file: a test installs the database before any server module loads.
      (await import("@/lib/server/server-context")).resetServerContext();
      await handle.close();
    },
  };
}
