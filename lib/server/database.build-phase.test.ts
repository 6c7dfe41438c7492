import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getDatabase } from "./database";

// `next build` runs page and route code to prerender what it can (the setup page counted users that
// way, so a build created every table in the database it was pointed at, and opened the embedded
// folder a running dev server held). At build time the app's database is never opened, whichever
// it is. The build itself is checked the same way in e2e/24.
afterEach(() => {
  vi.unstubAllEnvs();
});

describe("getDatabase while the app is being built", () => {
  it("refuses to open the embedded database, and creates nothing in its folder", async () => {
    const parent = mkdtempSync(path.join(tmpdir(), "tp-build-phase-"));
    const folder = path.join(parent, "pglite");
    vi.stubEnv("NEXT_PHASE", "phase-production-build");
    vi.stubEnv("DATABASE_URL", "");
    vi.stubEnv("PGLITE_DATA_DIR", folder);
    await expect(getDatabase()).rejects.toThrow("No database is opened while the app is being built.");
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(`${folder}.lock`)).toBe(false);
    rmSync(parent, { recursive: true, force: true });
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "refuses to open a Postgres database, and creates no table in it",
    async () => {
      const admin = postgres(process.env.TEST_DATABASE_URL ?? "", { max: 1, onnotice: () => {} });
      const name = `tp_build_phase_${process.pid}`;
      await admin.unsafe(`create database "${name}"`);
      try {
        const url = new URL(process.env.TEST_DATABASE_URL ?? "");
        url.pathname = `/${name}`;
        vi.stubEnv("NEXT_PHASE", "phase-production-build");
        vi.stubEnv("DATABASE_URL", url.toString());
        await expect(getDatabase()).rejects.toThrow("No database is opened while the app is being built.");
        const probe = postgres(url.toString(), { max: 1, onnotice: () => {} });
        const tables =
          await probe`select table_name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')`;
        await probe.end({ timeout: 5 });
        expect(tables).toEqual([]);
      } finally {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
        await admin.end({ timeout: 5 });
      }
    },
  );
});
