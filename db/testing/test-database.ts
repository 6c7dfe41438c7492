import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { type DatabaseHandle, openDatabase } from "../client";

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or
 * a new database on the server named by `TEST_DATABASE_URL` (dropped on close),
 * so test files never share state or race on migrations. On a server the
 * handle carries the database's `url`.
 */
export async function openTestDatabase(): Promise<DatabaseHandle & { url?: string }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return openDatabase({ dataDir: "memory://" });

  const databaseName = `tp_test_${randomUUID().replaceAll("-", "")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${databaseName}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  const handle = await openDatabase({ url: url.toString() });
  return {
    ...handle,
    // Another "instance" opens the same database with it (multi-instance tests).
    url: url.toString(),
    close: async () => {
      await handle.close();
      await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/** Which driver the database tests run on, for test names. */
export const testDriverName = process.env.TEST_DATABASE_URL ? "postgres" : "pglite";
