import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { ensureEventPartitions } from "./event-partitions";
import { lockFolder } from "./folder-lock";
import { prepareEveryStatement } from "./prepare-every-statement";
import * as schema from "./schema";

const PGLITE_VERSION: string = JSON.parse(
  readFileSync(path.join(process.cwd(), "node_modules", "@electric-sql", "pglite", "package.json"), "utf8"),
).version;

/** One database type for both drivers (a union of the two breaks `.returning()`). */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DatabaseDriver = "pglite" | "postgres";

/**
 * Receives NOTIFY payloads of one channel; returns a function that stops listening. `onListening`
 * is called each time the channel is listened to (again, after a lost connection came back: what
 * was notified meanwhile was missed).
 */
export type ListenFunction = (
  channel: string,
  onPayload: (payload: string) => void,
  onListening?: () => void,
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
  /**
   * A direct connection to the same database when `url` goes through a pooler in transaction
   * mode (PgBouncer): migrations (a session's advisory lock) and LISTEN need a session of their
   * own, and statements through the pooler are sent unprepared (docs/operations.md#behind-pgbouncer).
   */
  directUrl?: string;
  /** PGlite data folder, or `memory://` for a throwaway in-memory database. */
  dataDir?: string;
  /** Called with every statement sent to a Postgres server (benchmarks count them). */
  onQuery?: (query: string) => void;
  /**
   * What this process is ("the app server", "playground user list"): a PGlite folder is
   * held by one process at a time (db/folder-lock.ts), and another one is told who holds it.
   */
  command?: string;
  /** Where this process answers HTTP, when it is the app: told to another that finds the folder held. */
  address?: string | undefined;
}

export const MIGRATIONS_FOLDER = path.join(process.cwd(), "db", "migrations");
// Hidden from Next's file tracing (the comment is Turbopack's): as a constant the tracer could follow,
// every route listed the database's files, so a standalone build would ship the developer's data
// and every write looked like a changed source file. e2e/24 checks the build's traces.
export const DEFAULT_PGLITE_DATA_DIR = path.join(/* turbopackIgnore: true */ ".data", "pglite");

/** Opens a database and applies every committed migration before returning it. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  return options.url
    ? openPostgres(options.url, options.directUrl, options.onQuery)
    : openPglite(options.dataDir ?? DEFAULT_PGLITE_DATA_DIR, {
        command: options.command ?? describeThisProcess(),
        address: options.address,
      });
}

async function openPglite(
  dataDir: string,
  holder: { command: string; address: string | undefined },
): Promise<DatabaseHandle> {
  if (dataDir === "memory://") return wrapPglite(await createMigratedMemoryPglite(), async () => {});
  // Taken before PGlite reads a byte of the folder, given up only after it has closed it.
  let client: PGlite | null = null;
  const lock = await lockFolder(dataDir, {
    ...holder,
    onWait: (message) => process.stderr.write(`${message}\n`),
    onLost: (error) => {
      process.stderr.write(
        `lost the lock on ${path.resolve(dataDir)} (${error.message}): closing the database so that two processes never write it; restart this process\n`,
      );
      void client?.close();
    },
  });
  try {
    mkdirSync(dataDir, { recursive: true });
    client = await PGlite.create(dataDir);
    return await wrapPglite(client, () => lock.release());
  } catch (error) {
    await client?.close().catch(() => {});
    await lock.release();
    throw error;
  }
}

async function wrapPglite(client: PGlite, releaseFolder: () => Promise<void>): Promise<DatabaseHandle> {
  const db = drizzlePglite(client, { schema });
  await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  // Every process makes the months ahead as it opens the database; the sweeps keep them ahead.
  await ensureEventPartitions(db, new Date());
  return {
    db: db as unknown as Db,
    driver: "pglite",
    listen: async (channel, onPayload, onListening) => {
      const unlisten = await client.listen(channel, onPayload);
      onListening?.();
      return async () => unlisten();
    },
    close: async () => {
      await client.close();
      await releaseFolder();
    },
  };
}

/** This process, as another one is told when it finds a folder held: its command line, shortened. */
function describeThisProcess(): string {
  const script = process.argv[1] ? path.relative(process.cwd(), process.argv[1]) : "";
  return ["node", script, ...process.argv.slice(2)].filter(Boolean).join(" ").slice(0, 200);
}

/**
 * A throwaway in-memory PGlite, started from a data directory that was
 * initialised and migrated once and kept in the user's cache (keyed by the
 * PGlite version and the migrations' contents), instead of running initdb and
 * every migration again: the CLI and every test file open one of these.
 */
async function createMigratedMemoryPglite(): Promise<PGlite> {
  const template = pgliteTemplatePath();
  if (existsSync(template)) {
    try {
      return await PGlite.create({ loadDataDir: new Blob([readFileSync(template)]) });
    } catch {
      // A damaged template is rebuilt below.
    }
  }
  const client = await PGlite.create("memory://");
  await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
  try {
    const dump = await client.dumpDataDir("gzip");
    mkdirSync(path.dirname(template), { recursive: true });
    // Written aside, then renamed: processes building it at once never read half a file.
    const staging = `${template}.${process.pid}.${Date.now()}`;
    writeFileSync(staging, Buffer.from(await dump.arrayBuffer()));
    renameSync(staging, template);
  } catch {
    // No cache (a read-only home, say): every open just migrates, as before.
  }
  return client;
}

function pgliteTemplatePath(): string {
  const hash = createHash("sha256");
  hash.update(PGLITE_VERSION);
  for (const file of readdirSync(MIGRATIONS_FOLDER, { recursive: true }).map(String).sort()) {
    const full = path.join(MIGRATIONS_FOLDER, file);
    if (file.endsWith(".sql") || file.endsWith(".json")) hash.update(file).update(readFileSync(full));
  }
  const cache = process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache");
  return path.join(cache, "tool-playground", `pglite-${hash.digest("hex").slice(0, 16)}.tar.gz`);
}

// Several app instances may start at once against one server: migrate under an
// advisory lock so only one of them applies DDL.
const MIGRATION_LOCK_KEY = 7_305_118_001;

const CONNECT_TIMEOUT_SECONDS = 5;

/** Every statement's limit on a Postgres server (PLAYGROUND_STATEMENT_TIMEOUT_MS, default 15 s). */
function readStatementTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env.PLAYGROUND_STATEMENT_TIMEOUT_MS);
  return Number.isInteger(configured) && configured > 0 ? configured : 15_000;
}

async function openPostgres(
  url: string,
  directUrl: string | undefined,
  onQuery?: (query: string) => void,
): Promise<DatabaseHandle> {
  // max: 1 keeps the lock and the migration on the same connection (a session: never a pooler's).
  const migrator = postgres(directUrl ?? url, { max: 1, onnotice: () => {} });
  try {
    await migrator`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migratePostgres(drizzlePostgres(migrator), { migrationsFolder: MIGRATIONS_FOLDER });
    // Every process makes the months ahead as it opens the database; the sweeps keep them ahead.
    await ensureEventPartitions(drizzlePostgres(migrator), new Date());
    await migrator`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
  } finally {
    await migrator.end({ timeout: 5 });
  }
  const pooled = directUrl !== undefined;
  const client = postgres(url, {
    max: 10,
    onnotice: () => {},
    // A server that went away is said in seconds, not after the driver's 30 s: requests answer
    // 503 database_unavailable and pages say so instead of hanging (docs/operations.md#during-a-database-outage).
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    // No list, page or stream opening waits on one statement for ever. A pooler refuses this at
    // connect (PgBouncer: "unsupported startup parameter"): behind one, the role or database sets it.
    ...(pooled ? { prepare: false } : { connection: { statement_timeout: readStatementTimeoutMs() } }),
    ...(onQuery ? { debug: (_connection: number, query: string) => onQuery(query) } : {}),
  });
  // Behind a pooler in transaction mode, consecutive statements may reach different server
  // sessions, where a statement prepared on another does not exist.
  const db = drizzlePostgres(pooled ? client : prepareEveryStatement(client), { schema });
  // LISTEN holds a session: through a pooler in transaction mode it would hear nothing.
  const listener = pooled
    ? postgres(directUrl, { max: 1, onnotice: () => {}, connect_timeout: CONNECT_TIMEOUT_SECONDS })
    : client;
  return {
    db: db as unknown as Db,
    driver: "postgres",
    listen: async (channel, onPayload, onListening) => {
      const subscription = await listener.listen(channel, onPayload, onListening);
      return () => subscription.unlisten();
    },
    close: async () => {
      await client.end({ timeout: 5 });
      if (listener !== client) await listener.end({ timeout: 5 });
    },
  };
}

/** Where this process keeps its database, from the environment (docs/configuration.md). */
export function databaseOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): OpenDatabaseOptions {
  if (env.DATABASE_URL) {
    return {
      url: env.DATABASE_URL,
      ...(env.DATABASE_DIRECT_URL ? { directUrl: env.DATABASE_DIRECT_URL } : {}),
    };
  }
  return { dataDir: env.PGLITE_DATA_DIR || DEFAULT_PGLITE_DATA_DIR };
}
