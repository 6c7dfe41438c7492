/**
 * The built-in tools of docs/scenario-format.md#built-in-tools. File tools act on the run's virtual
 * workspace through `ToolContext`; a path is normalised before any access, so
 * an escaping path is an error result and never reaches a store.
 */
import { ToolError } from "../errors";
import { readOptionalStringArgument, readStringArgument } from "./read-string-argument";
import type { JsonSchemaObject, ToolDefinition } from "./tool-definition";
import { throwIfAborted } from "./wait-for-delay";
import { normalizeWorkspacePath } from "./workspace";

function describeObjectSchema(
  properties: Record<string, Record<string, unknown>>,
  required: string[],
): JsonSchemaObject {
  return { type: "object", properties, required, additionalProperties: false };
}

/**
 * A path argument must be written as it resolves ("docs/../a.txt" is refused, naming "a.txt"): policy
 * rules, grants and the approver read the path as written, and the tool acts on the resolved one, so
 * the two must be the same path. A path the tool would refuse (one that leaves the workspace) is
 * refused here too, before anyone is asked to approve it. `allowRoot`: "" names the whole workspace.
 */
const ROOT_SPELLINGS = new Set([".", "./"]);

function checkPathArgument(key: string, options: { allowRoot?: boolean } = {}) {
  return (args: Record<string, unknown>): string[] => {
    const written = args[key];
    if (typeof written !== "string") return []; // absent where optional; a wrong type is the schema's
    try {
      const resolved = normalizeWorkspacePath(written, options);
      if (resolved === written || (resolved === "" && ROOT_SPELLINGS.has(written))) return [];
      return [
        `${key}: write ${JSON.stringify(written)} as the path it resolves to, ${JSON.stringify(resolved)}, so that rules and approvers read the path that is used`,
      ];
    } catch (error) {
      return [`${key}: ${error instanceof Error ? error.message : String(error)}`];
    }
  };
}

const PATH_PROPERTY = {
  type: "string",
  minLength: 1,
  description: "Workspace-relative path, e.g. notes/todo.md",
};

const readFileTool: ToolDefinition = {
  name: "read_file",
  description: "Read a text file from the workspace.",
  parameters: describeObjectSchema({ path: PATH_PROPERTY }, ["path"]),
  resourceClass: "pure_read",
  effect: "READ",
  approval: "never",
  checkArguments: checkPathArgument("path"),
  async execute(args, context) {
    throwIfAborted(context.signal);
    const path = normalizeWorkspacePath(readStringArgument(args, "path"));
    const content = await context.workspace.read(path);
    if (content === undefined) {
      throw new ToolError(`no such file: ${JSON.stringify(path)}`);
    }
    return { path, content };
  },
};

const listFilesTool: ToolDefinition = {
  name: "list_files",
  description: "List the files under a workspace directory (the whole workspace when dir is omitted).",
  parameters: describeObjectSchema(
    { dir: { type: "string", description: 'Workspace-relative directory; omit or "" for all files' } },
    [],
  ),
  resourceClass: "pure_read",
  effect: "READ",
  approval: "never",
  checkArguments: checkPathArgument("dir", { allowRoot: true }),
  async execute(args, context) {
    throwIfAborted(context.signal);
    const dir = normalizeWorkspacePath(readOptionalStringArgument(args, "dir") ?? "", { allowRoot: true });
    return { dir, files: await context.workspace.list(dir) };
  },
};

const searchFilesTool: ToolDefinition = {
  name: "search_files",
  description: "Find the lines of workspace files that contain a text (case-sensitive).",
  parameters: describeObjectSchema({ query: { type: "string", minLength: 1 } }, ["query"]),
  resourceClass: "pure_read",
  effect: "READ",
  approval: "never",
  async execute(args, context) {
    throwIfAborted(context.signal);
    const query = readStringArgument(args, "query");
    return { query, matches: await context.workspace.search(query) };
  },
};

const writeFileTool: ToolDefinition = {
  name: "write_file",
  description: "Create or replace a text file in the workspace.",
  parameters: describeObjectSchema({ path: PATH_PROPERTY, content: { type: "string" } }, ["path", "content"]),
  resourceClass: "write",
  effect: "IDEMPOTENT_WRITE",
  approval: "always",
  checkArguments: checkPathArgument("path"),
  async execute(args, context) {
    throwIfAborted(context.signal);
    const path = normalizeWorkspacePath(readStringArgument(args, "path"));
    const content = readStringArgument(args, "content");
    await context.workspace.write(path, content);
    return { path, bytes: new TextEncoder().encode(content).byteLength };
  },
};

const deleteFileTool: ToolDefinition = {
  name: "delete_file",
  description: "Delete a file from the workspace.",
  parameters: describeObjectSchema({ path: PATH_PROPERTY }, ["path"]),
  resourceClass: "write",
  effect: "NON_IDEMPOTENT_WRITE",
  approval: "always",
  checkArguments: checkPathArgument("path"),
  async execute(args, context) {
    throwIfAborted(context.signal);
    const path = normalizeWorkspacePath(readStringArgument(args, "path"));
    if (!(await context.workspace.delete(path))) {
      throw new ToolError(`no such file: ${JSON.stringify(path)}`);
    }
    return { path, deleted: true };
  },
};

const memoryGetTool: ToolDefinition = {
  name: "memory_get",
  description: "Read a value from the run's memory.",
  parameters: describeObjectSchema({ key: { type: "string", minLength: 1 } }, ["key"]),
  resourceClass: "memory",
  effect: "READ",
  approval: "never",
  async execute(args, context) {
    throwIfAborted(context.signal);
    const key = readStringArgument(args, "key");
    const value = await context.memory.get(key);
    // `undefined` would vanish from a JSON result, so a missing key reads as null with found: false.
    return { key, value: value === undefined ? null : value, found: value !== undefined };
  },
};

const memorySetTool: ToolDefinition = {
  name: "memory_set",
  description: "Store a JSON value in the run's memory under a key.",
  parameters: describeObjectSchema(
    { key: { type: "string", minLength: 1 }, value: { description: "Any JSON value" } },
    ["key", "value"],
  ),
  resourceClass: "memory",
  effect: "IDEMPOTENT_WRITE",
  approval: "never",
  async execute(args, context) {
    throwIfAborted(context.signal);
    const key = readStringArgument(args, "key");
    if (!Object.hasOwn(args, "value")) {
      throw new ToolError("value: is required");
    }
    await context.memory.set(key, args.value);
    return { key };
  },
};

const taskCreateTool: ToolDefinition = {
  name: "task_create",
  description: "Create a task in the run's task list.",
  parameters: describeObjectSchema({ title: { type: "string", minLength: 1 } }, ["title"]),
  resourceClass: "tasks",
  effect: "NON_IDEMPOTENT_WRITE",
  approval: "never",
  async execute(args, context) {
    throwIfAborted(context.signal);
    return context.tasks.create(readStringArgument(args, "title"));
  },
};

const replyTool: ToolDefinition = {
  name: "reply",
  description: "Send a message to the user; the run continues with the next step. Must be the only call.",
  parameters: describeObjectSchema({ message: { type: "string" } }, ["message"]),
  resourceClass: "terminal",
  effect: "READ",
  approval: "never",
  async execute(args) {
    return { message: readStringArgument(args, "message") };
  },
};

const finishTool: ToolDefinition = {
  name: "finish",
  description: "Finish the run with a summary. Must be the only call.",
  parameters: describeObjectSchema({ summary: { type: "string" } }, ["summary"]),
  resourceClass: "terminal",
  effect: "READ",
  approval: "never",
  async execute(args) {
    return { summary: readStringArgument(args, "summary") };
  },
};

/**
 * The built-in tools in the order of docs/scenario-format.md#built-in-tools, with their default
 * approval policies. Shared and frozen: `createToolRegistry` copies one before overriding its
 * approval, so no registry can change another's.
 */
export const BUILT_IN_TOOLS: readonly ToolDefinition[] = Object.freeze(
  [
    readFileTool,
    listFilesTool,
    searchFilesTool,
    writeFileTool,
    deleteFileTool,
    memoryGetTool,
    memorySetTool,
    taskCreateTool,
    replyTool,
    finishTool,
  ].map((tool) => Object.freeze(tool)),
);

/** Names of the built-in tools; a custom tool may not take one. */
export const BUILT_IN_TOOL_NAMES: ReadonlySet<string> = new Set(BUILT_IN_TOOLS.map((tool) => tool.name));
