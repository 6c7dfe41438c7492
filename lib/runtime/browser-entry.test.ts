import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * What no module the browser loads may reach: server code, the database, the
 * runtime's coordinator and host (they drive runs and hold stores), and the
 * runtime's barrel (`lib/runtime/index.ts`, which sets zod's global error map
 * on import and re-exports all of the above). Client code takes what it needs
 * from `lib/runtime/browser.ts` or the runtime's modules directly.
 */
const FORBIDDEN: ReadonlyArray<{ path: string; why: string }> = [
  { path: "lib/server/", why: "server code" },
  { path: "db/", why: "the database" },
  { path: "lib/runtime/coordinator/", why: "the coordinator" },
  { path: "lib/runtime/host/", why: "the run host" },
  { path: "lib/runtime/index.ts", why: "the runtime's barrel, which has a side effect" },
];

const root = process.cwd();
const EXTENSIONS = [".ts", ".tsx", "/index.ts", "/index.tsx"];

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(relative);
    return /\.tsx?$/.test(entry.name) && !/\.(test|spec|contract)\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

/** The module a specifier names, repo-relative; null for a package. */
function resolve(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.join(path.dirname(from), specifier);
  else return null;
  if (existsSync(path.join(root, base)) && statSync(path.join(root, base)).isFile()) return base;
  for (const extension of EXTENSIONS) {
    if (existsSync(path.join(root, base + extension))) return base + extension;
  }
  throw new Error(`${from}: cannot resolve ${specifier}`);
}

/** The modules a file loads at run time: type-only imports and exports are erased, so they do not count. */
function runtimeImports(file: string): string[] {
  const source = readFileSync(path.join(root, file), "utf8");
  const statements = source.matchAll(/^(import|export)\s+([^;]*?)\s*from\s+"([^"]+)"|^import\s+"([^"]+)"/gms);
  const specifiers: string[] = [];
  for (const [, , clause = "", fromSpecifier, bareSpecifier] of statements) {
    if (bareSpecifier) {
      specifiers.push(bareSpecifier);
      continue;
    }
    if (/^type\b/.test(clause)) continue;
    const named = clause.match(/\{([^}]*)\}/);
    const hasDefaultOrNamespace = /^[\w$*]/.test(clause.replace(/\{[^}]*\}/, "").trim());
    const onlyTypes =
      named !== null &&
      !hasDefaultOrNamespace &&
      (named[1] ?? "")
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean)
        .every((name) => name.startsWith("type "));
    if (!onlyTypes && fromSpecifier) specifiers.push(fromSpecifier);
  }
  for (const [, specifier] of source.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) {
    if (specifier) specifiers.push(specifier);
  }
  return specifiers.flatMap((specifier) => {
    const resolved = resolve(file, specifier);
    return resolved ? [resolved] : [];
  });
}

function isDirective(file: string, directive: string): boolean {
  return new RegExp(`^(?:\\s|//[^\\n]*\\n|/\\*[\\s\\S]*?\\*/)*["']${directive}["']`).test(
    readFileSync(path.join(root, file), "utf8"),
  );
}

/** Every forbidden module a client file reaches, with the chain of imports that reaches it. */
function forbiddenReaches(entry: string): string[] {
  const found: string[] = [];
  const seen = new Set<string>([entry]);
  const queue: string[][] = [[entry]];
  while (queue.length > 0) {
    const chain = queue.shift() as string[];
    const file = chain[chain.length - 1] as string;
    for (const imported of runtimeImports(file)) {
      if (seen.has(imported)) continue;
      seen.add(imported);
      const rule = FORBIDDEN.find((forbidden) => imported.startsWith(forbidden.path));
      if (rule) {
        found.push(`${[...chain, imported].join(" → ")} (${rule.why})`);
        continue;
      }
      // A server action is a reference the bundler turns into a call over HTTP; its code stays on the server.
      if (isDirective(imported, "use server")) continue;
      queue.push([...chain, imported]);
    }
  }
  return found;
}

describe("the browser's code", () => {
  const clientFiles = ["app", "components", "lib"]
    .flatMap(sourceFiles)
    .filter((file) => isDirective(file, "use client"));

  it("has client components to check", () => {
    expect(clientFiles.length).toBeGreaterThan(10);
  });

  it("reaches no server, database, coordinator or host code, nor the runtime's barrel", () => {
    expect(clientFiles.flatMap(forbiddenReaches)).toEqual([]);
  });
});
