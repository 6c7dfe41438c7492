import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * A server process keeps what it shares in ONE slot on globalThis, in process-parts.ts
 * (docs/architecture.md#one-composition-root). dependency-cruiser sees imports, not this:
 * the scan below fails when production code anywhere else adds a property to globalThis,
 * writes one, or reaches it by index.
 */
const THE_SLOT = "lib/server/process-parts.ts";

/** globalThis used as something else than a slot of ours, with the reason. */
const NOT_OUR_SLOTS: Record<string, string> = {
  "lib/zod-without-eval.ts": "zod's own configuration holder, which zod itself reads from globalThis",
};

const FOLDERS = ["app", "bin", "components", "db", "lib"];
const ROOT_FILES = ["instrumentation.ts", "instrumentation-client.ts", "proxy.ts"];

const root = process.cwd();

function productionFiles(folder: string): string[] {
  return readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory())
      return entry.name === "node_modules" || entry.name === "testing" ? [] : productionFiles(relative);
    return /\.(ts|tsx|mjs)$/.test(entry.name) && !/\.(test|spec|contract)\.tsx?$/.test(entry.name)
      ? [relative]
      : [];
  });
}

/**
 * The lines of `source` that make or touch a slot: a cast that adds properties
 * (`globalThis as …`), an index (`globalThis[…]`), or a write (`globalThis.x =`, `??=`, `||=`).
 */
function slotLines(source: string): string[] {
  return source
    .split("\n")
    .filter((line) =>
      /globalThis\s*(\bas\b|\[|\.\s*[\w$]+\s*(\?\?|\|\||&&)?=(?!=))|\(\s*globalThis\s+as\b/.test(line),
    );
}

describe("the process's one slot on globalThis", () => {
  it("recognises each way of making a slot, and a plain read as none", () => {
    expect(slotLines("const g = globalThis as typeof globalThis & { x?: number };")).toHaveLength(1);
    expect(slotLines('(globalThis as { y?: string }).y = "a";')).toHaveLength(1);
    expect(slotLines("globalThis.cache ??= new Map();")).toHaveLength(1);
    expect(slotLines('globalThis["cache"] = 1;')).toHaveLength(1);
    expect(slotLines("this.#fetch = options.fetch ?? globalThis.fetch;")).toEqual([]);
    expect(slotLines("if (globalThis.fetch === undefined) return;")).toEqual([]);
  });

  it("is in process-parts.ts, and nowhere else in production code", () => {
    const files = [...FOLDERS.flatMap(productionFiles), ...ROOT_FILES];
    expect(files).toContain(THE_SLOT);
    const found = files
      .filter((file) => file !== THE_SLOT && !(file in NOT_OUR_SLOTS))
      .flatMap((file) =>
        slotLines(readFileSync(path.join(root, file), "utf8")).map((line) => `${file}: ${line.trim()}`),
      );
    expect(
      found,
      "keep a process-wide part in process-parts.ts (processPart), not in a slot of its own",
    ).toEqual([]);
    expect(slotLines(readFileSync(path.join(root, THE_SLOT), "utf8"))).toHaveLength(1);
  });
});
