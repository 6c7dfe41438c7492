/**
 * How a tool's thrown error is reported to the server (`{ code?, message }`,
 * docs/agent-api.md). The server takes only a snake_case code, so the
 * thrown error's own code is put in that form rather than lost; one that
 * cannot be is kept at the head of the message.
 */
import type { MAX_ERROR_CODE_CHARACTERS } from "../runtime/agent/agent-schemas";

// The server's rule (lib/runtime/agent/agent-schemas.ts), kept here because the client loads no server
// code at run time (docs/agents.md); the type ties the length to the server's, error-report.test.ts the form.
const MAX_CODE_CHARACTERS: typeof MAX_ERROR_CODE_CHARACTERS = 64;
/** The longest message a report may carry (characters). */
const MAX_MESSAGE_CHARACTERS = 10_000;

export interface ErrorReport {
  code?: string;
  message: string;
}

export function errorReport(error: unknown): ErrorReport {
  const message = messageOf(error) || "failed";
  const thrown = (error as { code?: unknown } | null)?.code;
  const code = typeof thrown === "string" ? snakeCaseCode(thrown) : null;
  if (code) return { code, message: message.slice(0, MAX_MESSAGE_CHARACTERS) };
  // A code with no snake_case form (a number such as an HTTP status or a gRPC status, SQLSTATE's
  // "23505") is not given an invented one: the person reading the audit sees it as it was thrown.
  const original = shownCode(thrown);
  return { message: (original ? `[${original}] ${message}` : message).slice(0, MAX_MESSAGE_CHARACTERS) };
}

/**
 * An Error's message; a thrown object's own string `message` (libraries throw `{ code, message }`
 * too), else the object as JSON rather than "[object Object]"; anything else as text.
 */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error !== "object" || error === null) return String(error);
  const own = (error as { message?: unknown }).message;
  if (typeof own === "string") return own;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error); // a cycle, or a BigInt inside
  }
}

/**
 * `ENOENT` → `enoent`, `ERR_INVALID_ARG_TYPE` → `err_invalid_arg_type`, `auth/user-not-found` →
 * `auth_user_not_found`; a code already in the server's form is unchanged. Null when nothing is left.
 */
export function snakeCaseCode(code: string): string | null {
  const snake = code
    .toLowerCase()
    // A trailing run of other characters is dropped, not turned into a dangling `_`.
    .replace(/[^a-z0-9_]+$/, "")
    .replace(/[^a-z0-9_]+/g, "_")
    // The server's code starts with a letter.
    .replace(/^[^a-z]+/, "")
    .slice(0, MAX_CODE_CHARACTERS);
  return snake === "" ? null : snake;
}

/** The thrown code as text for the message, when it is a value a person can read. */
function shownCode(code: unknown): string | null {
  if (typeof code === "string") return code.trim() === "" ? null : code;
  if (typeof code === "number" || typeof code === "bigint") return String(code);
  return null;
}
