/**
 * In-memory `Workspace` for tests and demos. Behaves exactly as the port's
 * contract says, so a test against it says something about the real one.
 */
import { normalizeWorkspacePath, type Workspace } from "../tools/workspace";

/** A `Workspace` whose files can be inspected synchronously by a test. */
export interface MemoryWorkspace extends Workspace {
  /** A copy of every file, keyed by path, in sorted path order. */
  snapshot(): Record<string, string>;
}

/**
 * Creates an in-memory workspace holding `initialFiles`. Their paths are
 * normalised (and an unsafe one is refused with a `ToolError`) just as a
 * tool's would be, so "a/./b.txt" is stored as "a/b.txt".
 */
export function createMemoryWorkspace(initialFiles: Record<string, string> = {}): MemoryWorkspace {
  const files = new Map<string, string>();
  for (const [path, content] of Object.entries(initialFiles)) {
    files.set(normalizeWorkspacePath(path), content);
  }

  function listSortedPaths(): string[] {
    return [...files.keys()].sort(compareCodeUnits);
  }

  return {
    async read(path) {
      return files.get(path);
    },
    async list(dir) {
      const prefix = dir === "" ? "" : `${dir}/`;
      return listSortedPaths().filter((path) => path.startsWith(prefix));
    },
    async write(path, content) {
      files.set(path, content);
    },
    async delete(path) {
      return files.delete(path);
    },
    async search(query) {
      const matches: Array<{ path: string; line: number; text: string }> = [];
      for (const path of listSortedPaths()) {
        const lines = (files.get(path) ?? "").split(/\r?\n/);
        lines.forEach((text, index) => {
          if (text.includes(query)) {
            matches.push({ path, line: index + 1, text });
          }
        });
      }
      return matches;
    },
    snapshot() {
      return Object.fromEntries(listSortedPaths().map((path) => [path, files.get(path) ?? ""]));
    },
  };
}

// Default `sort` compares UTF-16 code units, which is the order the port promises.
function compareCodeUnits(left: string, right: string): number {
  if (left < right) {
    return -1;
  }
  return left > right ? 1 : 0;
}
