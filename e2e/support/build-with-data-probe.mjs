// Builds the app for the e2e run (`next build`) with a file in the embedded
// database's default folder (.data/pglite), so that e2e/24 can see whether the
// build traced that folder: on a clean clone the folder does not exist, and a
// tracer can only list files that do. A probe this made is removed afterwards;
// a developer's own database folder is left alone (its files are the probe).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const folder = path.join(".data", "pglite");
const madeHere = !existsSync(folder);
if (madeHere) {
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, "trace-probe.json"), "{}\n");
}
const build = spawnSync(
  process.execPath,
  [path.join("node_modules", "next", "dist", "bin", "next"), "build"],
  {
    stdio: "inherit",
  },
);
if (madeHere) rmSync(folder, { recursive: true, force: true });
process.exit(build.status ?? 1);
