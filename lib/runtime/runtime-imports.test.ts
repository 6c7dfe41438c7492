import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** What the runtime's own code may import besides itself: portable libraries only. */
const ALLOWED = new Set(["zod", "ajv", "redos-detector", "@opentelemetry/api", "@noble/hashes"]);

/** The package a bare specifier names: `@noble/hashes/sha2.js` is `@noble/hashes`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return parts.slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.ts$/.test(entry.name) && !/\.(test|contract)\.ts$/.test(entry.name) ? [full] : [];
  });
}

describe("lib/runtime stays framework-free", () => {
  it("imports no Next, React, drizzle or Node module: only itself and portable libraries", () => {
    const offending = sourceFiles(path.join(process.cwd(), "lib", "runtime")).flatMap((file) =>
      [
        ...readFileSync(file, "utf8").matchAll(
          /^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|\bimport\("([^"]+)"\)/gms,
        ),
      ]
        .map((match) => match[1] ?? match[2] ?? "")
        .filter((specifier) => !specifier.startsWith(".") && !specifier.startsWith("@/lib/runtime"))
        .filter((specifier) => !ALLOWED.has(packageOf(specifier)))
        .map((specifier) => `${path.relative(process.cwd(), file)}: ${specifier}`),
    );
    expect(offending).toEqual([]);
  });
});
