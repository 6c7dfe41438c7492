import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * What the app serves, read from its folders the way Next reads them, so a
 * new page, route or action is covered by the tests that walk them without
 * anyone listing it: route groups `(name)` add nothing to the path,
 * `[param]` and `[...param]` stay as written.
 */

const APP_FOLDER = path.join(process.cwd(), "app");

function listFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

/** The URL path of a file's folder under app/ (`app/(signed-in)/runs/[id]/page.tsx` → `/runs/[id]`). */
function routePathOf(file: string): string {
  const segments = path
    .relative(APP_FOLDER, path.dirname(file))
    .split(path.sep)
    .filter((segment) => segment && !/^\(.*\)$/.test(segment));
  return `/${segments.join("/")}`;
}

/** Every page (`page.tsx`): its URL path pattern (e.g. `/`, `/runs/[id]`) and its file. */
export function listPageFiles(): { path: string; file: string }[] {
  return listFiles(APP_FOLDER)
    .filter((file) => /^page\.(tsx|ts|jsx|js)$/.test(path.basename(file)))
    .map((file) => ({ path: routePathOf(file), file }))
    .sort((first, second) => first.path.localeCompare(second.path));
}

/** Every page's URL path pattern, e.g. `/`, `/runs/[id]`. */
export function listPageRoutes(): string[] {
  return listPageFiles().map((page) => page.path);
}

const METHODS = "GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS";

/**
 * Every route handler (`route.ts`): its URL path pattern, its file and the methods it takes, as it
 * exports them by name (`export const GET`, `export { GET }`); the answers to the methods it does not
 * take, exported by destructuring `answerOtherMethods(…)`, are not among them.
 */
export function listRouteHandlers(): { path: string; file: string; methods: string[] }[] {
  return listFiles(APP_FOLDER)
    .filter((file) => /^route\.(ts|js)$/.test(path.basename(file)))
    .map((file) => {
      const text = readFileSync(file, "utf8");
      const declared = [
        ...text.matchAll(
          new RegExp(`export\\s+(?:async\\s+function|const|function)\\s+(${METHODS})\\b`, "g"),
        ),
      ].map((match) => match[1] ?? "");
      // `export { GET } from "../route"` and `export { GET, POST }`.
      const reexported = [...text.matchAll(/export\s*\{([^}]*)\}/g)].flatMap((match) =>
        (match[1] ?? "")
          .split(",")
          .map(
            (name) =>
              name
                .trim()
                .split(/\s+as\s+/)
                .pop() ?? "",
          )
          .filter((name) => new RegExp(`^(${METHODS})$`).test(name)),
      );
      return { path: routePathOf(file), file, methods: [...declared, ...reexported].sort() };
    })
    .sort((first, second) => first.path.localeCompare(second.path));
}

/** Every server action: the exported functions of each `"use server"` file under app/. */
export function listServerActions(): { file: string; name: string }[] {
  return listFiles(APP_FOLDER)
    .filter((file) => /\.(ts|tsx)$/.test(file) && !/\.test\.tsx?$/.test(file))
    .flatMap((file) => {
      const text = readFileSync(file, "utf8");
      if (!/^\s*["']use server["'];?/.test(text)) return [];
      return [...text.matchAll(/export\s+async\s+function\s+(\w+)/g)].map((match) => ({
        file,
        name: match[1] ?? "",
      }));
    })
    .sort((first, second) => first.name.localeCompare(second.name));
}
