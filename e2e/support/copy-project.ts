import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * The project's sources (what git knows, as they are now) in a temporary folder, node_modules
 * hard-linked: a development server run there compiles into its own .next and keeps its own
 * .data, away from the suite's build and the developer's data. Remove `path.dirname(copy)` after.
 */
export function copyProject(prefix: string): string {
  const copy = path.join(mkdtempSync(path.join(tmpdir(), prefix)), "app");
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\0")
    .filter((file) => file && existsSync(file));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(file, path.join(copy, file));
  }
  execFileSync("cp", ["-al", "node_modules", path.join(copy, "node_modules")]);
  return copy;
}
