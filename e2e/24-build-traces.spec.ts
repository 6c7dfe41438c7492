import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";

/** Every `.nft.json` (the files Next traced for a route) under a build folder. */
function traceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return traceFiles(full);
    return entry.name.endsWith(".nft.json") ? [full] : [];
  });
}

// Next traces the files each server route reads: a standalone build copies them into the app, and
// the development server may watch them. The embedded database's folder (./.data/pglite) was among
// them, because its default path was a constant the tracer could follow: a build would ship whatever
// runs and accounts the developer had. The e2e build puts a file there first
// (e2e/support/build-with-data-probe.mjs): a tracer lists only files that exist.
test("a build never traces the embedded database's files as part of a route", () => {
  const traced = traceFiles(path.join(".next", "server")).flatMap((file) => {
    const { files } = JSON.parse(readFileSync(file, "utf8")) as { files: string[] };
    return files
      .map((entry) => path.relative(process.cwd(), path.resolve(path.dirname(file), entry)))
      .filter((entry) => entry.startsWith(`.data${path.sep}`))
      .map((entry) => `${path.relative(".next", file)}: ${entry}`);
  });
  expect(traced.slice(0, 5)).toEqual([]);
});
