import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import * as schema from "./schema";

/** One database type for both drivers (a union of the two breaks `.returning()`). */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DatabaseDriver = "pglite" | "postgres";

/** Receives NOTIFY payloads of one channel; returns a function that stops listening. */
export type ListenFunction = (
  channel: string,
  onPayload: (payload: string) => void,
) => Promise<() => Promise<void>>;

export interface DatabaseHandle {
  db: Db;
  driver: DatabaseDriver;
  listen: ListenFunction;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A Postgres connection string; when absent PGlite is used. */
  url?: string;
  /** PGlite data folder, or `memory://` for a throwaway in-memory database. */
  dataDir?: string;
  /** Called with every statement sent to a Postgres server (benchmarks count them). */
  onQuery?: (query: string) => void;
}

export const MIGRATIONS_FOLDER = path.join(process.cwd(), "db", "migrations");
export const DEFAULT_PGLITE_DATA_DIR = path.join(".data", "pglite");

/** Opens a database and applies every committed migration before returning it. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  return options.url
    ? openPostgres(options.url, options.onQuery)
    : openPglite(options.dataDir ?? DEFAULT_PGLITE_DATA_DIR);
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  if (!dataDir.includes("://")) mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
  const db = drizzlePglite(client, { schema });
  await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return {
    db: db as unknown as Db,
    driver: "pglite",
    listen: async (channel, onPayload) => {
      const unlisten = await client.listen(channel, onPayload);
      return async () => unlisten();
    },
    close: () => client.close(),
  };
}

// Several app instances may start at once against one server: migrate under an
// advisory lock so only one of them applies DDL.
const MIGRATION_LOCK_KEY = 7_305_118_001;

async function openPostgres(url: string, onQuery?: (query: string) => void): Promise<DatabaseHandle> {
  // max: 1 keeps the lock and the migration on the same connection.
  const migrator = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrator`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migratePostgres(drizzlePostgres(migrator), { migrationsFolder: MIGRATIONS_FOLDER });
    await migrator`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
  } finally {
    await migrator.end({ timeout: 5 });
  }
  const client = postgres(url, {
    max: 10,
    onnotice: () => {},
    ...(onQuery ? { debug: (_connection: number, query: string) => onQuery(query) } : {}),
  });
  const db = drizzlePostgres(client, { schema });
  return {
    db: db as unknown as Db,
    driver: "postgres",
    listen: async (channel, onPayload) => {
      const subscription = await client.listen(channel, onPayload);
      return () => subscription.unlisten();
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/** Where this process keeps its database, from the environment (README, Configuration). */
export function databaseOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): OpenDatabaseOptions {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL };
  return { dataDir: env.PGLITE_DATA_DIR || DEFAULT_PGLITE_DATA_DIR };
}

const globalForDatabase = globalThis as typeof globalThis & {
  toolPlaygroundDatabase?: Promise<DatabaseHandle>;
};

/**
 * The process-wide database, opened (and migrated) once. PGlite takes seconds to
 * open and its data folder admits one process, so every request shares this.
 */
export function getDatabase(): Promise<DatabaseHandle> {
  if (!globalForDatabase.toolPlaygroundDatabase) {
    const opening = openDatabase(databaseOptionsFromEnv());
    // A failed open is not cached: the next request tries again.
    opening.catch(() => {
      if (globalForDatabase.toolPlaygroundDatabase === opening) {
        globalForDatabase.toolPlaygroundDatabase = undefined;
      }
    });
    globalForDatabase.toolPlaygroundDatabase = opening;
  }
  return globalForDatabase.toolPlaygroundDatabase;
}
