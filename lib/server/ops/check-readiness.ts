import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { MIGRATIONS_FOLDER } from "@/db/client";
import { getDatabase } from "@/lib/server/database";
import { isBackgroundWorkRunning } from "@/lib/server/server-context";
import { checkDatabaseHealth } from "./check-database-health";

/** One check: its result, a fixed code anyone may see, and the detail only the log and admins see. */
interface Check<Code extends string> {
  ok: boolean;
  code: Code;
  detail: string;
}

export interface Readiness {
  ready: boolean;
  checks: {
    database: Check<"answers" | "unavailable">;
    migrations: Check<"applied" | "pending" | "unreadable" | "not_checked">;
    backgroundWork: Check<"running" | "left_to_workers" | "not_started">;
  };
}

/** The readiness a stranger may see: each check's result and code, no detail. */
export function withoutDetails(readiness: Readiness) {
  const { database, migrations, backgroundWork } = readiness.checks;
  const bare = <Code extends string>({ ok, code }: Check<Code>) => ({ ok, code });
  return {
    ready: readiness.ready,
    checks: { database: bare(database), migrations: bare(migrations), backgroundWork: bare(backgroundWork) },
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
  const database: Readiness["checks"]["database"] = health.ok
    ? { ok: true, code: "answers", detail: `${health.database} answers` }
    : { ok: false, code: "unavailable", detail: `does not answer: ${health.reason}` };
  const migrations: Readiness["checks"]["migrations"] = health.ok
    ? await checkMigrations()
    : { ok: false, code: "not_checked", detail: "not checked: no database" };
  const handedOff = process.env.PLAYGROUND_BACKGROUND_WORK === "off";
  const backgroundWork: Readiness["checks"]["backgroundWork"] = handedOff
    ? {
        ok: true,
        code: "left_to_workers",
        detail: "off here (PLAYGROUND_BACKGROUND_WORK=off): left to `npm run worker`",
      }
    : isBackgroundWorkRunning()
      ? { ok: true, code: "running", detail: "running" }
      : { ok: false, code: "not_started", detail: "not started" };
  return {
    ready: database.ok && migrations.ok && backgroundWork.ok,
    checks: { database, migrations, backgroundWork },
  };
}

async function checkMigrations(): Promise<Readiness["checks"]["migrations"]> {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  try {
    const { db } = await getDatabase();
    const rows = (await db.execute(
      sql`select count(*)::int as applied from drizzle.__drizzle_migrations`,
    )) as unknown;
    const applied = Number(readRows(rows)[0]?.applied ?? 0);
    const detail = `${applied} of ${journal.entries.length} applied`;
    return applied >= journal.entries.length
      ? { ok: true, code: "applied", detail }
      : { ok: false, code: "pending", detail };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, code: "unreadable", detail: `cannot be read: ${reason}` };
  }
}

/** `db.execute` answers rows directly (postgres-js) or as `{ rows }` (PGlite). */
function readRows(result: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(result)) return result as Array<Record<string, unknown>>;
  const rows = (result as { rows?: unknown }).rows;
  return Array.isArray(rows) ? (rows as Array<Record<string, unknown>>) : [];
}
