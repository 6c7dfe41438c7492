import { readdirSync } from "node:fs";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../client";
import { migratedTemplateName, openTestDatabase } from "./test-database";

const serverUrl = process.env.TEST_DATABASE_URL;
const migrationCount = readdirSync(MIGRATIONS_FOLDER).filter((file) => file.endsWith(".sql")).length;

describe.skipIf(!serverUrl)("openTestDatabase on a Postgres server", () => {
  it("copies a template migrated once, named after the migrations, and the copy has every migration", async () => {
    const [first, second] = await Promise.all([openTestDatabase(), openTestDatabase()]);
    const admin = postgres(serverUrl ?? "", { max: 1, onnotice: () => {} });
    try {
      const templates = await admin`select datname from pg_database where datname like 'tp_template_%'`;
      expect(templates.map((row) => row.datname)).toContain(migratedTemplateName());
      // Nothing half-built is left behind by two files starting at once.
      expect(templates.map((row) => row.datname)).not.toContain(`${migratedTemplateName()}_building`);
      for (const handle of [first, second]) {
        const copy = postgres(handle.url ?? "", { max: 1, onnotice: () => {} });
        const applied = await copy`select count(*)::int as count from drizzle.__drizzle_migrations`;
        await copy.end({ timeout: 5 });
        expect(applied[0]?.count).toBe(migrationCount);
      }
      // Two copies, not one database shared.
      expect(first.url).not.toBe(second.url);
    } finally {
      await admin.end({ timeout: 5 });
      await first.close();
      await second.close();
    }
  });
});
