import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { MIGRATIONS_FOLDER } from "../client";

/**
 * An empty database that a migration's test migrates by hand: up to the migration, then rows as
 * they were stored before it, then the rest. In-memory PGlite, or a new database on the server
 * named by `TEST_DATABASE_URL` (dropped on close).
 */
export interface PartlyMigratedDatabase {
  query<T>(text: string, parameters?: unknown[]): Promise<T[]>;
  /** Applies the migrations listed before `tag` (say "0017"), or all of them when none is named. */
  migrate(before?: string): Promise<void>;
  close(): Promise<void>;
}

export async function openEmptyDatabase(): Promise<PartlyMigratedDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const client = await PGlite.create("memory://");
    return {
      query: async (text, parameters) => (await client.query(text, parameters)).rows as never[],
      migrate: (before) =>
        withMigrationsBefore(before, (folder) =>
          migratePglite(drizzlePglite(client), { migrationsFolder: folder }),
        ),
      close: () => client.close(),
    };
  }
  const name = `tp_test_${randomUUID().replaceAll("-", "")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const client = postgres(url.toString(), { max: 1, onnotice: () => {} });
  return {
    query: async (text, parameters) => (await client.unsafe(text, parameters as never[])) as never[],
    migrate: (before) =>
      withMigrationsBefore(before, (folder) =>
        migratePostgres(drizzlePostgres(client), { migrationsFolder: folder }),
      ),
    close: async () => {
      await client.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/** Runs `migrate` over a copy of the migrations whose journal lists only those before `tag`. */
async function withMigrationsBefore(
  tag: string | undefined,
  migrate: (folder: string) => Promise<void>,
): Promise<void> {
  if (tag === undefined) return migrate(MIGRATIONS_FOLDER);
  const folder = mkdtempSync(path.join(tmpdir(), "tp-migrations-"));
  try {
    cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journalPath = path.join(folder, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8"));
    journal.entries = journal.entries.filter((entry: { tag: string }) => entry.tag < tag);
    writeFileSync(journalPath, JSON.stringify(journal));
    await migrate(folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
