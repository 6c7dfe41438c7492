/**
 * Ports through which tools touch the world, and the path normaliser that
 * keeps workspace paths inside the workspace. Implementations live outside the
 * runtime (the database) or in `lib/runtime/testing` (in memory).
 */
import { ToolError } from "../errors";

/**
 * The run's virtual workspace: a flat map from canonical relative paths
 * ("notes/todo.md") to UTF-8 text. Directories are implied by paths; there is
 * no host filesystem behind it. Every path handed to a method has already
 * passed `normalizeWorkspacePath`, so implementations may use it as a key.
 */
export interface Workspace {
  /** The file's content, or `undefined` when there is no such file. */
  read(path: string): Promise<string | undefined>;
  /**
   * Paths of the files under `dir` (that is, starting with `dir + "/"`),
   * sorted by code unit order; `dir` "" lists every file.
   */
  list(dir: string): Promise<string[]>;
  /** Creates or replaces the file. */
  write(path: string, content: string): Promise<void>;
  /** Removes the file; `true` if it existed. */
  delete(path: string): Promise<boolean>;
  /**
   * Every line containing `query` as a case-sensitive plain substring, ordered
   * by path then line. `line` is 1-based; `text` is the whole line without its
   * line terminator.
   */
  search(query: string): Promise<Array<{ path: string; line: number; text: string }>>;
}

/** The run's key-value memory. Values are JSON data. */
export interface MemoryStore {
  /** The stored value, or `undefined` when the key was never set. */
  get(key: string): Promise<unknown | undefined>;
  /** Stores (or replaces) the value of `key`. */
  set(key: string, value: unknown): Promise<void>;
}

/** The run's task list. */
export interface TaskStore {
  /** Creates a task and returns it with its new, unique id. */
  create(title: string): Promise<{ id: string; title: string }>;
}

/**
 * Everything an executor may use. `signal` aborts when the turn or the run is
 * cancelled; a tool that honours it fails with a `ToolError("aborted")`.
 */
export interface ToolContext {
  workspace: Workspace;
  memory: MemoryStore;
  tasks: TaskStore;
  signal: AbortSignal;
  /** Says how far a long call is; the run shows it live (best effort: never fails the call). */
  reportProgress?(progress: ToolProgress): void;
  /**
   * The call being executed, as the run loop knows it: what a tool executed
   * outside the playground (an agent's, `lib/runtime/agent`) is released as.
   * `arguments` is the text it runs with (an approver's edit, when edited).
   */
  call?: {
    runId: string;
    stepIndex: number;
    batchIndex: number;
    id: string;
    name: string;
    arguments: string;
  };
}

/** How far a running call is: `progress` of `total` (when known), and what it is doing. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** Longest accepted path, in UTF-16 code units; longer ones are refused. */
export const MAX_WORKSPACE_PATH_LENGTH = 1024;

// A percent-escape of ".", "/", "\" or a control character is a traversal
// trick aimed at a layer that decodes; no legitimate name needs one.
const ENCODED_STRUCTURAL_CHARACTER = /%(2e|2f|5c|[01][0-9a-f]|7f)/i;
const WINDOWS_DRIVE = /^[a-z]:/i;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Returns the canonical relative form of a workspace path ("a/./b//c.txt" →
 * "a/b/c.txt", "a/../b" → "b") or throws a `ToolError` naming the path.
 *
 * Refused: a non-string or empty path; more than `MAX_WORKSPACE_PATH_LENGTH`
 * characters; absolute paths ("/x", "C:\x", "C:/x", "\\host\x") and URLs;
 * backslashes; NUL and other control characters; a ".." that climbs above the
 * workspace root ("../x", "a/../../x"); percent-escapes of ".", "/", "\" or
 * control characters ("%2e%2e/x", "a%2fb"), and any path that still contains
 * such an escape, or any other refused form, after one round of
 * percent-decoding (double encoding, "%252e%252e"). Other percent signs are
 * literal characters ("100%.txt", "a%20b" are file names as written).
 *
 * The workspace root itself ("", ".", "a/..") is refused unless
 * `options.allowRoot` is set, in which case it normalises to "" (used for
 * directory arguments, where "" means the whole workspace).
 */
export function normalizeWorkspacePath(path: unknown, options: { allowRoot?: boolean } = {}): string {
  if (typeof path !== "string") {
    throw new ToolError(`invalid path: expected a string, got ${describeType(path)}`);
  }
  const label = quotePath(path);
  if (path.length > MAX_WORKSPACE_PATH_LENGTH) {
    throw new ToolError(`invalid path ${label}: longer than ${MAX_WORKSPACE_PATH_LENGTH} characters`);
  }
  assertSafeText(path, label);
  const decoded = decodePercentOnce(path);
  if (decoded !== path) {
    // A layer downstream might decode once more; the decoded form must be just as safe.
    assertSafeText(decoded, label);
  }
  const canonical = resolveSegments(path, label);
  if (canonical === "" && options.allowRoot !== true) {
    throw new ToolError(`invalid path ${label}: names the workspace root, not a file`);
  }
  return canonical;
}

function assertSafeText(text: string, label: string): void {
  if (text.includes("\u0000")) {
    throw new ToolError(`invalid path ${label}: contains a NUL byte`);
  }
  if (containsControlCharacter(text)) {
    throw new ToolError(`invalid path ${label}: contains a control character`);
  }
  if (text.includes("\\")) {
    throw new ToolError(`invalid path ${label}: contains a backslash; use "/" between segments`);
  }
  if (ENCODED_STRUCTURAL_CHARACTER.test(text)) {
    throw new ToolError(
      `invalid path ${label}: contains a percent-encoded ".", "/", "\\" or control character`,
    );
  }
  if (text.startsWith("/") || WINDOWS_DRIVE.test(text) || URL_SCHEME.test(text)) {
    throw new ToolError(`invalid path ${label}: must be relative to the workspace`);
  }
  resolveSegments(text, label);
}

// C0 controls, DEL and C1 controls: never part of a sensible file name, and
// several of them (NUL, newline) confuse storage layers and logs.
function containsControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) {
      return true;
    }
  }
  return false;
}

/** Resolves "." and ".." segments and drops empty ones; throws when ".." escapes the root. */
function resolveSegments(text: string, label: string): string {
  const resolved: string[] = [];
  for (const segment of text.split("/")) {
    if (segment === "" || segment === ".") {
      continue;
    }
    if (segment === "..") {
      if (resolved.length === 0) {
        throw new ToolError(`invalid path ${label}: escapes the workspace`);
      }
      resolved.pop();
      continue;
    }
    resolved.push(segment);
  }
  return resolved.join("/");
}

/** Decodes percent-escapes once; a malformed escape sequence leaves the text as written. */
function decodePercentOnce(text: string): string {
  if (!text.includes("%")) {
    return text;
  }
  try {
    return decodeURIComponent(text);
  } catch {
    // Not valid UTF-8 escapes as a whole ("100%"): decode the ASCII escapes
    // alone, which are the only ones that can form a structural character.
    return text.replace(/%([0-7][0-9a-f])/gi, (_match, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
}

function quotePath(path: string): string {
  const shown = path.length > 120 ? `${path.slice(0, 120)}…` : path;
  return JSON.stringify(shown);
}

function describeType(value: unknown): string {
  if (value === null) {
    return "null";
  }
  return Array.isArray(value) ? "array" : typeof value;
}
