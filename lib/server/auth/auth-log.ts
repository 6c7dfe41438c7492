import "server-only";
import { getLogger } from "@/lib/server/ops/logger";

type AuthLogLevel = "debug" | "info" | "warn" | "error";

/**
 * better-auth's log lines, written as the server's own (lib/server/ops/logger.ts: one JSON line,
 * credentials redacted, a failed query's parameters cut) instead of better-auth's coloured,
 * many-line text. Only what better-auth writes through its logger comes here: its router still
 * prints an unexpected error on /api/auth/* to the console itself.
 *
 * A refusal of the client's own making (an error better-auth answers with a 4xx: an unknown,
 * expired or disabled API token) is not the server's error: better-auth logs one at ERROR for every
 * such token, twice per request when the identity is looked up again (lib/http/require-identity.ts),
 * so a client with a wrong token filled the log with them. An API route's own "request refused"
 * line says the request was refused (401 `unauthenticated`); the refusal is kept at debug.
 */
export function logFromAuth(level: AuthLogLevel, message: unknown, ...args: unknown[]): void {
  // better-auth's types say the message is text; one of its routes hands over the error itself.
  const err = [message, ...args].find((arg): arg is Error => arg instanceof Error);
  const detail = args.find((arg) => !(arg instanceof Error));
  const text = typeof message === "string" ? message.replace(/:\s*$/, "") : (err?.message ?? String(message));
  const fields = {
    component: "better-auth",
    ...(err ? { err } : {}),
    ...(detail === undefined ? {} : { detail }),
  };
  getLogger()[isClientRefusal(err) ? "debug" : level](fields, text);
}

/** better-call's APIError (what better-auth throws to answer a request) with a 4xx status. */
function isClientRefusal(error: Error | undefined): boolean {
  if (error?.name !== "APIError") return false;
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === "number" && status >= 400 && status < 500;
}
