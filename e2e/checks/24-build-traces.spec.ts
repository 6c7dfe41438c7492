import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";

// What a build may touch, checked on the build the suite runs on (e2e/support/build-beside-data.mjs
// makes it where it could do harm, and records what it found). A build opened and migrated whatever
// database it was pointed at: it created every table in an empty Postgres database, and opened an
// embedded folder a running dev server held, which then never opened again. And Next traced the whole
// project into most routes (README, docs/, e2e/, the embedded database's folder), because a config
// file's name comes from the environment: a standalone build would have shipped the developer's data.

/** Every `.nft.json` (the files Next traced for a route) under a build folder. */
function traceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return traceFiles(full);
    return entry.name.endsWith(".nft.json") ? [full] : [];
  });
}

interface BuildCheck {
  heldFolder: {
    holderStillHeldIt: boolean;
    opensAfterwards: boolean;
    usersAfterwards: string[] | string;
    buildOutputMentionsIt: boolean;
  };
  emptyPostgresDatabase: { tablesAfterwards: string[] } | null;
}

function readBuildCheck(): BuildCheck {
  const file = path.join(".next", "e2e-build-check.json");
  if (!existsSync(file)) throw new Error(`${file} is missing: run the suite once without E2E_SKIP_BUILD`);
  return JSON.parse(readFileSync(file, "utf8")) as BuildCheck;
}

test("a build opens no database: an embedded folder another process holds stays its, an empty Postgres database stays empty", () => {
  const { heldFolder, emptyPostgresDatabase } = readBuildCheck();
  expect(heldFolder).toEqual({
    holderStillHeldIt: true,
    opensAfterwards: true,
    usersAfterwards: ["build-check@e2e.test"],
    buildOutputMentionsIt: false,
  });
  test.info().annotations.push({
    type: "postgres",
    description: emptyPostgresDatabase
      ? "checked on an empty database"
      : "no Postgres server was named (DATABASE_URL, TEST_DATABASE_URL or E2E_BUILD_POSTGRES_URL): not checked",
  });
  if (emptyPostgresDatabase) expect(emptyPostgresDatabase.tablesAfterwards).toEqual([]);
});

test("each route's traced files are what it needs: of the project's own, only the migrations it applies", () => {
  const traces = traceFiles(path.join(".next", "server"));
  expect(traces.length).toBeGreaterThan(20);
  const outOfPlace = traces.flatMap((file) => {
    const { files } = JSON.parse(readFileSync(file, "utf8")) as { files: string[] };
    return files
      .map((entry) => path.relative(process.cwd(), path.resolve(path.dirname(file), entry)))
      .filter(
        (entry) =>
          !entry.startsWith(`node_modules${path.sep}`) &&
          !entry.startsWith(`.next${path.sep}`) &&
          !entry.startsWith(path.join("db", "migrations") + path.sep),
      )
      .map((entry) => `${path.relative(".next", file)}: ${entry}`);
  });
  expect(outOfPlace.slice(0, 10)).toEqual([]);
});
