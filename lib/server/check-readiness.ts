import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { getDatabase, MIGRATIONS_FOLDER } from "@/db/client";
import { checkDatabaseHealth } from "./check-database-health";
import { isBackgroundWorkRunning } from "./get-run-service";

export interface Readiness {
  ready: boolean;
  checks: {
    database: { ok: boolean; detail: string };
    migrations: { ok: boolean; detail: string };
    backgroundWork: { ok: boolean; detail: string };
  };
}

/**
 * Whether this instance should get traffic: the database answers, every
 * migration this build ships has been applied, and the background work
 * (taking over runs, expiring waits) runs here, or is handed to workers
 * (`PLAYGROUND_BACKGROUND_WORK=off`).
 */
export async function checkReadiness(): Promise<Readiness> {
  const health = await checkDatabaseHealth();
  const database = health.ok
    ? { ok: true, detail: `${health.database} answers` }
    : { ok: false, detail: `does not answer: ${health.reason}` };
  const migrations = health.ok ? await checkMigrations() : { ok: false, detail: "not checked: no database" };
  const handedOff = process.env.PLAYGROUND_BACKGROUND_WORK === "off";
  const backgroundWork = handedOff
    ? { ok: true, detail: "off here (PLAYGROUND_BACKGROUND_WORK=off): left to `npm run worker`" }
    : isBackgroundWorkRunning()
      ? { ok: true, detail: "running" }
      : { ok: false, detail: "not started" };
  return {
    ready: database.ok && migrations.ok && backgroundWork.ok,
    checks: { database, migrations, backgroundWork },
  };
}

async function checkMigrations(): Promise<{ ok: boolean; detail: string }> {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  try {
    const { db } = await getDatabase();
    const rows = (await db.execute(
      sql`select count(*)::int as applied from drizzle.__drizzle_migrations`,
    )) as unknown;
    const applied = Number(readRows(rows)[0]?.applied ?? 0);
    return applied >= journal.entries.length
      ? { ok: true, detail: `${applied} of ${journal.entries.length} applied` }
      : { ok: false, detail: `${applied} of ${journal.entries.length} applied` };
  } catch (error) {
    return { ok: false, detail: `cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** `db.execute` answers rows directly (postgres-js) or as `{ rows }` (PGlite). */
function readRows(result: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(result)) return result as Array<Record<string, unknown>>;
  const rows = (result as { rows?: unknown }).rows;
  return Array.isArray(rows) ? (rows as Array<Record<string, unknown>>) : [];
}
