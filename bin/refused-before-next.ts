// Requests Next cannot answer, which it answers with a bare `500 Internal Server Error` as text,
// without the app's error body or its security headers:
// - a path that is not percent-encoded UTF-8 (`/api/runs/%FF`, an encoded lone surrogate): Next fails
//   decoding its route's parameters, and logs nothing;
// - a method no page or route takes (`TRACE`, `PROPFIND`; Node refuses one it does not know): Next
//   logs a stack trace at error for each, which any stranger could fill the log with.
// - a `Next-Action` header naming no server action of this build (`curl -X POST -H 'Next-Action:
//   deadbeef' …/`): Next answers it (400, or 409 for an id of the right shape) but logs the whole
//   stack of its "Failed to find Server Action" error with `console.warn(error)`, which no option
//   turns off and any stranger could fill the log with.
// The production server answers them itself, before Next, with the one error body and the headers
// next.config.mjs gives that path; an unknown action is logged as one warning line.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { type ConfigHeaders, readConfigHeaders } from "./api-lane.ts";

/** Answers a request Next cannot (and says true), or leaves it (false). */
export type RequestCheck = (incoming: IncomingMessage, outgoing: ServerResponse) => boolean;

/** The methods the app's pages, server actions and route handlers take. */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Next's header that tells its client router the action was not found (it reloads, as after a deploy). */
const ACTION_NOT_FOUND_HEADER = "x-nextjs-action-not-found";

/** Next's server action ids are 42 hexadecimal characters (`SERVER_REFERENCE_ID_LENGTH`). */
const ACTION_ID = /^[0-9a-f]{42}$/;

/** One warning line, as the app's logger writes them (JSON on stdout). */
export type WarnLine = (fields: Record<string, unknown>, message: string) => void;

const warnAsJsonLine: WarnLine = (fields, message) => {
  process.stdout.write(
    `${JSON.stringify({ level: "warn", time: new Date().toISOString(), pid: process.pid, ...fields, msg: message })}\n`,
  );
};

/** The check, with the headers the build in `distDir` gives each path. */
export function loadRefusalsBeforeNext(distDir: string, warn: WarnLine = warnAsJsonLine): RequestCheck {
  const configHeaders: ConfigHeaders[] = readConfigHeaders(distDir);
  const actionIds = readServerActionIds(distDir);
  return (incoming, outgoing) => {
    const pathname = (incoming.url ?? "/").split("?")[0] ?? "/";
    const actionId = incoming.method === "POST" ? incoming.headers["next-action"] : undefined;
    const refusal = !METHODS.includes(incoming.method ?? "")
      ? {
          status: 405,
          code: "method_not_allowed",
          headers: { allow: METHODS.join(", ") },
          message: `The method ${JSON.stringify((incoming.method ?? "").slice(0, 32))} is not one this app takes: ${METHODS.join(", ")}.`,
        }
      : pathname.includes("%") && !decodes(pathname)
        ? {
            status: 400,
            code: "invalid_request",
            headers: {},
            message: "The path is not valid percent-encoded UTF-8: encode each byte of UTF-8 as %XX.",
          }
        : actionId !== undefined && actionIds !== null && !actionIds.has(String(actionId))
          ? refuseUnknownAction(String(actionId))
          : null;
    if (!refusal) return false;
    for (const entry of configHeaders) {
      if (!entry.pattern.test(pathname)) continue;
      for (const { key, value } of entry.headers) outgoing.setHeader(key, value);
    }
    const requestId = randomUUID();
    if (ACTION_NOT_FOUND_HEADER in refusal.headers) {
      warn(
        { requestId, status: refusal.status, path: pathname.slice(0, 200), action: quoted(String(actionId)) },
        "refused a server action request naming no server action of this build",
      );
    }
    outgoing.writeHead(refusal.status, {
      ...refusal.headers,
      "content-type": "application/json",
      "x-request-id": requestId,
    });
    outgoing.end(JSON.stringify({ error: { code: refusal.code, message: refusal.message }, pending: null }));
    return true;
  };
}

/**
 * What Next would answer an action id its build does not have, with the header its client router
 * reads (so a page from an older deployment reloads as it would), and a message that says what is wrong.
 */
function refuseUnknownAction(actionId: string) {
  const headers = { [ACTION_NOT_FOUND_HEADER]: "1" };
  return ACTION_ID.test(actionId)
    ? {
        status: 404,
        code: "not_found",
        headers,
        message: `This server has no server action ${actionId}: the page may be from an older or newer deployment; reload it.`,
      }
    : {
        status: 400,
        code: "invalid_request",
        headers,
        message: `The Next-Action header ${quoted(actionId)} is not a server action id (42 hexadecimal characters).`,
      };
}

/** An id as a client sent it, cut and escaped for a log line or a message. */
function quoted(id: string): string {
  return JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id);
}

/**
 * The ids of the build's server actions (`server/server-reference-manifest.json`), or null when it
 * cannot be read: then every action request is handed to Next, which knows.
 */
export function readServerActionIds(distDir: string): Set<string> | null {
  try {
    const manifest = JSON.parse(
      readFileSync(path.join(distDir, "server", "server-reference-manifest.json"), "utf8"),
    ) as { node?: Record<string, unknown>; edge?: Record<string, unknown> };
    if (typeof manifest.node !== "object" || manifest.node === null) return null;
    return new Set([...Object.keys(manifest.node), ...Object.keys(manifest.edge ?? {})]);
  } catch {
    return null;
  }
}

function decodes(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}
