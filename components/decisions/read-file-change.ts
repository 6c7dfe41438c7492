/** What a gated call would do to a workspace file: write it (with its new content) or delete it. */
export interface FileChange {
  path: string;
  content?: string;
}

type ReadChange = (args: Record<string, unknown>) => FileChange | null;

// A Map, not an object literal: a custom tool named "toString" or "constructor" changes no file.
const FILE_CHANGES = new Map<string, ReadChange>([
  [
    "write_file",
    (args) =>
      typeof args.path === "string" && typeof args.content === "string"
        ? { path: args.path, content: args.content }
        : null,
  ],
  ["delete_file", (args) => (typeof args.path === "string" ? { path: args.path } : null)],
]);

/** The file change a call of a built-in file tool would make, or null (another tool, or arguments it cannot read). */
export function readFileChange(call: { name: string; arguments: string }): FileChange | null {
  const changeOf = FILE_CHANGES.get(call.name);
  if (!changeOf) return null;
  try {
    const args: unknown = JSON.parse(call.arguments);
    return args && typeof args === "object" && !Array.isArray(args)
      ? changeOf(args as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
