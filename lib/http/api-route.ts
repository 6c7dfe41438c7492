import "server-only";
import type { z } from "zod";
import { MAX_JSON_DEPTH, measureJsonDepth } from "@/lib/runtime";
import type { Identity } from "@/lib/server/auth/identity";
import { decodePageCursor } from "@/lib/server/lists/page-cursor";
import { getLogger } from "@/lib/server/ops/logger";
import type { RowCursor } from "@/lib/wire/list-filters";
import { queryObject } from "@/lib/wire/list-filters";
import { RequestRefusal, validateInput } from "@/lib/wire/request-refusal";
import type { Role } from "@/lib/wire/roles";
import { errorHeaders, toErrorBody } from "./error-response";
import { readRequestId } from "./request-id";
import { MAX_BODY_BYTES } from "./request-limits";
import { emptyBodySchema } from "./request-schemas";
import { requireIdentity } from "./require-identity";
import { jsonAnswer, sendSmallJsonUncompressed } from "./small-bodies-uncompressed";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The one wrapper of every route handler: refuses requests that change
 * something from another site (403 `forbidden`), establishes who is asking
 * and that they hold `role` (401 `unauthenticated`, 403 `forbidden`), and
 * maps whatever the handler throws through the one error table. Every
 * response carries the request's id (`X-Request-Id`); a refusal is logged
 * with it, its code and who asked, an unexpected error with its stack. A small
 * JSON answer goes out uncompressed (lib/http/small-bodies-uncompressed.ts). A
 * route reads its body with {@link readBody}, which refuses what the boundary
 * must never let in.
 */
export function handleRoute<Context = unknown>(
  options: { role: Role },
  handler: (request: Request, context: Context, identity: Identity) => Promise<Response>,
): (request: Request, context?: Context) => Promise<Response> {
  return async (request, context) => {
    const requestId = readRequestId(request.headers);
    let identity: Identity | null = null;
    let response: Response;
    try {
      if (!SAFE_METHODS.has(request.method)) refuseCrossSite(request);
      identity = await requireIdentity(request.headers, options.role);
      // Next always passes the context to routes that read one (`[id]` routes).
      response = await handler(request, context as Context, identity);
    } catch (error) {
      const { status, body } = toErrorBody(error, requestId);
      if (status < 500) {
        getLogger().info(
          {
            requestId,
            method: request.method,
            path: new URL(request.url).pathname,
            status,
            code: body.error.code,
            userId: identity?.userId,
          },
          "request refused",
        );
      }
      // A refusal may say when to come back (`Retry-After` on a 429 or a 503).
      response = jsonAnswer(body, {
        status,
        headers: { ...errorHeaders(body), ...(error instanceof RequestRefusal ? error.headers : {}) },
      });
    }
    response.headers.set("x-request-id", requestId);
    return sendSmallJsonUncompressed(response);
  };
}

/**
 * A browser says where a request comes from (`Sec-Fetch-Site`, `Origin`); a
 * page on another site must not start runs or decide through a signed-in
 * person's browser. Clients that are not browsers send neither and pass.
 */
export function refuseCrossSite(request: Request): void {
  const site = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  const originHost = origin === null ? null : readHost(origin);
  const isForeignOrigin = origin !== null && (originHost === null || originHost !== host);
  if ((site !== null && site !== "same-origin" && site !== "none") || isForeignOrigin) {
    throw RequestRefusal.of("forbidden", "Requests from another site are refused.");
  }
}

function readHost(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null; // "null" (a sandboxed or file page) is never our host
  }
}

/**
 * Reads a request's JSON body and validates it, refusing before any work: a
 * content type other than `application/json`, or a `Content-Encoding` other than `identity` (415); more than
 * `MAX_BODY_BYTES` (413, without reading the rest); text that is not UTF-8,
 * not JSON, or nests deeper than `MAX_JSON_DEPTH` (400); a key or string that
 * cannot be stored, NUL or an unpaired surrogate (400 naming its path); a
 * value the schema refuses (400 naming every field).
 */
export async function readBody<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
): Promise<z.infer<Schema>> {
  return validateInput(await readJsonBody(request), schema);
}

/** {@link readBody}'s first half: the body's JSON, refused as it refuses it, not yet validated. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const mediaType = mediaTypeOf(request);
  if (mediaType !== "application/json") {
    throw RequestRefusal.of(
      "unsupported_media_type",
      `Send the body as application/json (got ${mediaType ? mediaType.slice(0, 100) : "no content type"}).`,
    );
  }
  refuseContentEncoding(request);
  return parseJsonText(await readLimitedText(request));
}

function parseJsonText(text: string): unknown {
  if (measureJsonDepth(text) > MAX_JSON_DEPTH) {
    throw invalid("", `the body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw invalid("", "the body is not valid JSON");
  }
}

/**
 * For a route that takes nothing: no body at all (whatever its Content-Type), or `{}`. Any other
 * body is refused as {@link readBody} refuses it (415, 413, 400), and a JSON value other than `{}`
 * with a 400 naming the body, so that what a client meant to send is never silently dropped.
 */
export async function readEmptyBody(request: Request): Promise<void> {
  refuseContentEncoding(request);
  const text = await readLimitedText(request);
  if (text === "") return;
  const mediaType = mediaTypeOf(request);
  if (mediaType !== "application/json") {
    throw RequestRefusal.of(
      "unsupported_media_type",
      `This request takes no body, or {} as application/json (got ${mediaType ? mediaType.slice(0, 100) : "no content type"}).`,
    );
  }
  validateInput(parseJsonText(text), emptyBodySchema);
}

/**
 * The server reads a body as it arrives and decodes no compression: a compressed body would be
 * refused as text that is not UTF-8, which names neither the header nor the fix.
 */
function refuseContentEncoding(request: Request): void {
  const encoding = request.headers.get("content-encoding");
  if (encoding === null) return;
  const codings = encoding.split(",").map((coding) => coding.trim().toLowerCase());
  if (codings.every((coding) => coding === "" || coding === "identity")) return;
  throw RequestRefusal.of(
    "unsupported_media_type",
    `The body is sent with Content-Encoding: ${encoding.slice(0, 100)}, which this server does not decode: send it uncompressed (no Content-Encoding header, or identity).`,
  );
}

/** The body's media type as its Content-Type names it, lower-cased, without parameters ("" for none). */
export function mediaTypeOf(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

async function readLimitedText(request: Request): Promise<string> {
  const tooLarge = () =>
    RequestRefusal.of("payload_too_large", `The body is larger than the limit of ${MAX_BODY_BYTES} bytes.`);
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let received = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > MAX_BODY_BYTES) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid("", "the body is not valid UTF-8");
  }
}

function invalid(path: string, message: string): RequestRefusal {
  return RequestRefusal.invalid([{ path, message }]);
}

/** Reads a request's query string with a schema: a value it refuses is a 400 naming the parameter. */
export function readQuery<Schema extends z.ZodType>(request: Request, schema: Schema): z.infer<Schema> {
  return validateInput(queryObject(new URL(request.url).searchParams), schema);
}

/** A page cursor from `?after=`, or a 400 when it is not one this server wrote. */
export function readPageCursor(after: string | undefined): RowCursor | null {
  if (after === undefined) return null;
  const cursor = decodePageCursor(after);
  if (!cursor) throw invalid("after", "must be the nextCursor of a page this server sent");
  return cursor;
}
