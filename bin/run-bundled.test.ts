import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";

// The CLI runs from a cached bundle: an edit must show at the next run, as it did with tsx.
function run(entry: string, ...args: string[]) {
  return spawnSync("node", ["--conditions=react-server", "bin/run-bundled.mjs", entry, ...args], {
    encoding: "utf8",
  });
}

const cacheRoot = path.resolve("node_modules", ".cache", "tool-playground", "bundled");

/** A folder for one test's entry, removed afterwards with every build and pointer cached for that entry. */
function entryFolder(): string {
  const folder = mkdtempSync(path.join(tmpdir(), "tp-bundled-"));
  onTestFinished(() => {
    rmSync(folder, { recursive: true, force: true });
    for (const cached of existsSync(cacheRoot) ? readdirSync(cacheRoot, { withFileTypes: true }) : []) {
      if (cached.name.includes(path.basename(folder))) {
        rmSync(path.join(cacheRoot, cached.name), { recursive: true, force: true });
      }
    }
  });
  return folder;
}

describe("bin/run-bundled.mjs", () => {
  it("runs the entry with its arguments, and picks up an edit of a file it imports at the next run", () => {
    const folder = entryFolder();
    const entry = path.join(folder, `entry-${path.basename(folder)}.ts`);
    writeFileSync(
      entry,
      'import { word } from "./word";\nconst said: string = word;\nconsole.log(said, process.argv.slice(2).join(" "));\n',
    );
    writeFileSync(path.join(folder, "word.ts"), 'export const word = "first";\n');

    const first = run(entry, "run", "x.json");
    expect(first.stderr).toBe("");
    expect(first.stdout).toBe("first run x.json\n");
    expect(run(entry).stdout).toBe("first \n");

    writeFileSync(path.join(folder, "word.ts"), 'export const word = "second, edited";\n');
    expect(run(entry).stdout).toBe("second, edited \n");
  });

  it("names the file and line of a compile error, and runs nothing", () => {
    const folder = entryFolder();
    const entry = path.join(folder, `broken-${path.basename(folder)}.ts`);
    writeFileSync(entry, 'console.log("ran");\nconst x: number = ;\n');
    const result = run(entry);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/broken-.*\.ts:2:\d+/);
  });
});
