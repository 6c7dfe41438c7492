// Requests Next cannot answer, which it answers with a bare `500 Internal Server Error` as text,
// without the app's error body or its security headers:
// - a path that is not percent-encoded UTF-8 (`/api/runs/%FF`, an encoded lone surrogate): Next fails
//   decoding its route's parameters, and logs nothing;
// - a method no page or route takes (`TRACE`, `PROPFIND`; Node refuses one it does not know): Next
//   logs a stack trace at error for each, which any stranger could fill the log with.
// The production server answers them itself, before Next, with the one error body and the headers
// next.config.mjs gives that path.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type ConfigHeaders, readConfigHeaders } from "./api-lane.ts";

/** Answers a request Next cannot (and says true), or leaves it (false). */
export type RequestCheck = (incoming: IncomingMessage, outgoing: ServerResponse) => boolean;

/** The methods the app's pages, server actions and route handlers take. */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** The check, with the headers the build in `distDir` gives each path. */
export function loadRefusalsBeforeNext(distDir: string): RequestCheck {
  const configHeaders: ConfigHeaders[] = readConfigHeaders(distDir);
  return (incoming, outgoing) => {
    const pathname = (incoming.url ?? "/").split("?")[0] ?? "/";
    const refusal = !METHODS.includes(incoming.method ?? "")
      ? {
          status: 405,
          headers: { allow: METHODS.join(", ") },
          message: `The method ${JSON.stringify((incoming.method ?? "").slice(0, 32))} is not one this app takes: ${METHODS.join(", ")}.`,
        }
      : pathname.includes("%") && !decodes(pathname)
        ? {
            status: 400,
            headers: {},
            message: "The path is not valid percent-encoded UTF-8: encode each byte of UTF-8 as %XX.",
          }
        : null;
    if (!refusal) return false;
    for (const entry of configHeaders) {
      if (!entry.pattern.test(pathname)) continue;
      for (const { key, value } of entry.headers) outgoing.setHeader(key, value);
    }
    outgoing.writeHead(refusal.status, {
      ...refusal.headers,
      "content-type": "application/json",
      "x-request-id": randomUUID(),
    });
    const code = refusal.status === 405 ? "method_not_allowed" : "invalid_request";
    outgoing.end(JSON.stringify({ error: { code, message: refusal.message }, pending: null }));
    return true;
  };
}

function decodes(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}
