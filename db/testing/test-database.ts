import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { type DatabaseHandle, MIGRATIONS_FOLDER, openDatabase } from "../client";

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or
 * a new database on the server named by `TEST_DATABASE_URL` (dropped on close, and reached
 * through the pooler named by `TEST_POOLER_URL` when there is one),
 * so test files never share state or race on migrations. On a server the
 * handle carries the database's `url`.
 *
 * Both start from a template migrated once instead of running every migration
 * per test file: PGlite loads a dumped data folder (db/client.ts), and on a
 * server the database is a `CREATE DATABASE … TEMPLATE` copy of one named after
 * the migrations' contents (see {@link migratedTemplateName}).
 */
export async function openTestDatabase(): Promise<DatabaseHandle & { url?: string }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return openDatabase({ dataDir: "memory://" });

  const databaseName = `tp_test_${randomUUID().replaceAll("-", "")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const template = await ensureMigratedTemplate(admin, serverUrl);
  await admin.unsafe(`create database "${databaseName}" template "${template}"`);
  const url = databaseUrl(serverUrl, databaseName);
  // TEST_POOLER_URL: a PgBouncer in transaction mode in front of the same server; the handle's
  // statements go through it, its migrations and LISTEN straight to the server (.ci/run).
  const poolerUrl = process.env.TEST_POOLER_URL;
  const handle = await openDatabase(
    poolerUrl ? { url: databaseUrl(poolerUrl, databaseName), directUrl: url } : { url },
  );
  return {
    ...handle,
    // Another "instance" opens the same database with it (multi-instance tests).
    url,
    close: async () => {
      await handle.close();
      await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/** Which driver the database tests run on, for test names. */
export const testDriverName = process.env.TEST_DATABASE_URL
  ? process.env.TEST_POOLER_URL
    ? "postgres behind a pooler"
    : "postgres"
  : "pglite";

function databaseUrl(serverUrl: string, databaseName: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
}

/**
 * The template's name: the migrations' contents decide it, so a changed or added
 * migration makes a new template and a stale one is never copied.
 */
export function migratedTemplateName(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(MIGRATIONS_FOLDER, { recursive: true }).map(String).sort()) {
    if (file.endsWith(".sql") || file.endsWith(".json")) {
      hash.update(file).update(readFileSync(path.join(MIGRATIONS_FOLDER, file)));
    }
  }
  return `tp_template_${hash.digest("hex").slice(0, 16)}`;
}

// Test files start at once in several workers: one of them builds the template, the others wait.
const TEMPLATE_LOCK_KEY = 7_305_118_002;

/**
 * Makes the migrated template on the server unless it is there. It is built
 * under another name and renamed when complete, so a copy never starts from a
 * half-migrated template, and nothing stays connected to it (Postgres copies
 * only a database nobody is connected to).
 */
async function ensureMigratedTemplate(admin: postgres.Sql, serverUrl: string): Promise<string> {
  const template = migratedTemplateName();
  const exists = async () => (await admin`select 1 from pg_database where datname = ${template}`).length > 0;
  if (await exists()) return template;
  await admin`select pg_advisory_lock(${TEMPLATE_LOCK_KEY})`;
  try {
    if (await exists()) return template;
    const building = `${template}_building`;
    await admin.unsafe(`drop database if exists "${building}" with (force)`);
    await admin.unsafe(`create database "${building}"`);
    const handle = await openDatabase({ url: databaseUrl(serverUrl, building) });
    await handle.close();
    await admin.unsafe(`alter database "${building}" rename to "${template}"`);
    return template;
  } finally {
    await admin`select pg_advisory_unlock(${TEMPLATE_LOCK_KEY})`;
  }
}
