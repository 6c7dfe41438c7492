// A request whose path is not percent-encoded UTF-8 (`/api/runs/%FF`, an encoded lone surrogate):
// Next fails decoding its route's parameters and answers a bare `500 Internal Server Error` as
// text, without the app's error body or its security headers, and logs nothing. The production
// server answers such a path itself, as a 400 with the one error body and the headers
// next.config.mjs gives that path.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type ConfigHeaders, readConfigHeaders } from "./api-lane.ts";

export type PathCheck = (incoming: IncomingMessage, outgoing: ServerResponse) => boolean;

/** Refuses an undecodable path (and says true), with the headers the build in `distDir` gives it. */
export function loadUndecodablePathRefusal(distDir: string): PathCheck {
  const configHeaders: ConfigHeaders[] = readConfigHeaders(distDir);
  return (incoming, outgoing) => {
    const pathname = (incoming.url ?? "/").split("?")[0] ?? "/";
    if (!pathname.includes("%") || decodes(pathname)) return false;
    for (const entry of configHeaders) {
      if (!entry.pattern.test(pathname)) continue;
      for (const { key, value } of entry.headers) outgoing.setHeader(key, value);
    }
    const message = "The path is not valid percent-encoded UTF-8: encode each byte of UTF-8 as %XX.";
    outgoing.writeHead(400, { "content-type": "application/json", "x-request-id": randomUUID() });
    outgoing.end(JSON.stringify({ error: { code: "invalid_request", message }, pending: null }));
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
