import "server-only";
import { sql } from "drizzle-orm";
import { getDatabase } from "@/lib/server/database";

export type DatabaseHealth = { ok: true; database: "pglite" | "postgres" } | { ok: false; reason: string };

const HEALTH_TIMEOUT_MS = 3_000;

/** Asks the database a real question, and gives up after a few seconds rather than hang. */
export async function checkDatabaseHealth(): Promise<DatabaseHealth> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`)),
      HEALTH_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([
      (async () => {
        const handle = await getDatabase();
        await handle.db.execute(sql`select 1`);
        return { ok: true as const, database: handle.driver };
      })(),
      timeout,
    ]);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
