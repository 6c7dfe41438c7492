// `node --conditions=react-server bin/run-bundled.mjs <entry.ts> [args…]`: runs
// a TypeScript entry point (the CLI) from a bundle of our own code, cached in
// node_modules/.cache and rebuilt whenever a file it was built from changed.
//
// Why not tsx: loading the CLI's ~150 modules one by one through tsx's hooks
// took about a second before a scenario ran (three times the run itself). The
// bundle is one file plus lazy chunks; packages stay in node_modules and load
// natively. A check of the cache costs a stat of each input file, so an edit
// is picked up at the next run, as with tsx.
import { readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [entry] = process.argv.splice(2, 1);
if (!entry) {
  process.stderr.write("usage: node --conditions=react-server bin/run-bundled.mjs <entry.ts> [args…]\n");
  process.exit(2);
}
const name = path.basename(entry, path.extname(entry));
const cacheRoot = path.resolve("node_modules", ".cache", "tool-playground", "bundled");
// Which build is current, and the files it was built from: replaced whole (a rename), never edited.
const pointerFile = path.join(cacheRoot, `${name}.json`);
// Besides the sources: how they are resolved (tsconfig paths), the packages, and this file's build options.
const alwaysInputs = [
  "tsconfig.json",
  "package-lock.json",
  path.relative(process.cwd(), fileURLToPath(import.meta.url)),
];

/** Size and modification time: what changes when a file is edited or replaced. */
async function fingerprint(file) {
  const stats = await stat(file);
  return `${stats.size}:${stats.mtimeMs}`;
}

/** The current build's folder, when every file it was built from is as it was then. */
async function freshBuild() {
  let pointer;
  try {
    pointer = JSON.parse(await readFile(pointerFile, "utf8"));
  } catch {
    return null;
  }
  const checks = await Promise.all([
    stat(pointer.folder).then(
      () => true,
      () => false,
    ),
    ...Object.entries(pointer.inputs).map(async ([file, expected]) => {
      try {
        return (await fingerprint(file)) === expected;
      } catch {
        return false;
      }
    }),
  ]);
  return checks.every(Boolean) ? pointer.folder : null;
}

/**
 * Builds into a folder of its own and then points at it. Runs that started
 * earlier keep importing from the folder they chose, so concurrent runs (and
 * concurrent rebuilds) never see a half-written or removed bundle.
 */
async function rebuild() {
  const { build } = await import("esbuild");
  const folder = path.join(cacheRoot, `${name}-${Date.now()}-${process.pid}`);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    packages: "external",
    conditions: ["react-server"],
    outdir: folder,
    entryNames: "[name]",
    outExtension: { ".js": ".mjs" },
    metafile: true,
    logLevel: "error",
  });
  const files = [...Object.keys(result.metafile.inputs), ...alwaysInputs];
  const inputs = Object.fromEntries(
    await Promise.all(files.map(async (file) => [file, await fingerprint(file)])),
  );
  const staged = `${pointerFile}.${process.pid}`;
  await writeFile(staged, JSON.stringify({ folder, inputs }));
  await rename(staged, pointerFile);
  await removeOldBuilds(folder);
  return folder;
}

/** Earlier builds of this entry, once no run that started before this one can still be loading them. */
async function removeOldBuilds(current) {
  const cutoff = Date.now() - 10 * 60_000;
  for (const entryName of await readdir(cacheRoot)) {
    const folder = path.join(cacheRoot, entryName);
    if (folder === current || !entryName.startsWith(`${name}-`)) continue;
    const built = Number(entryName.slice(name.length + 1).split("-")[0]);
    if (built < cutoff) await rm(folder, { recursive: true, force: true });
  }
}

let folder = await freshBuild();
if (!folder) {
  try {
    folder = await rebuild();
  } catch {
    // esbuild has printed what failed to compile, with its file and line.
    process.exit(1);
  }
}
await import(pathToFileURL(path.join(folder, `${name}.mjs`)).href);
