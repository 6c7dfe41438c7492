import { toNextJsHandler } from "better-auth/next-js";
import { z } from "zod";
import { answerOtherMethods } from "@/lib/http/answer-other-methods";
import { mediaTypeOf, readJsonBody } from "@/lib/http/api-route";
import { jsonAnswer } from "@/lib/http/small-bodies-uncompressed";
import { isDisabledAuthPath } from "@/lib/server/auth/auth";
import {
  CLIENT_ADDRESS_HEADER,
  PEER_ADDRESS_HEADER,
  readClientAddress,
  readTrustedProxyHops,
} from "@/lib/server/auth/client-address";
import { readIdentity } from "@/lib/server/auth/identity";
import { forgetAuthChange } from "@/lib/server/auth/identity-cache";
import { accountAttemptsKey, getAccountAttemptLimiter } from "@/lib/server/auth/sign-in-limits";
import { getAuth } from "@/lib/server/server-context";
import { RequestRefusal, validateInput } from "@/lib/wire/request-refusal";

// better-auth's own endpoints (sign in, sign out, session): rate limited, and they check the origin themselves.
// The ones the app does not offer (API keys, impersonation) answer 404 in every spelling of their path.
export async function GET(request: Request) {
  if (isDisabledAuthPath(request.url)) return notFound();
  return toNextJsHandler(await getAuth()).GET(withClientAddress(request));
}

export async function POST(sent: Request) {
  if (isDisabledAuthPath(sent.url)) return notFound();
  const request = await withCheckedJson(sent);
  if (request instanceof Response) return request;
  const handle = async (forwarded: Request) => toNextJsHandler(await getAuth()).POST(forwarded);
  if (new URL(request.url).pathname.replace(/\/+$/, "").endsWith("/sign-in/email")) {
    return signInWithAccountLimit(withClientAddress(request), handle);
  }
  // Signing out, revoking sessions, a new name: this instance forgets what it held of the person
  // before it answers; the others as they hear the triggers (lib/server/auth/identity-cache.ts).
  const before = await readIdentity(request.headers);
  const response = await handle(withClientAddress(request));
  if (before) forgetAuthChange({ user: before.userId });
  return response;
}

/**
 * A JSON body refused as every other route refuses it (lib/http/api-route.ts: over 2 MiB, not JSON,
 * nested too deep, a NUL or an unpaired surrogate anywhere), before better-auth reads it: it would
 * hand such a string to the database, which fails the query (a 500, and better-call's print of the
 * failed query's parameters, a session token among them). A body it takes is read once here and
 * passed on as the same JSON (reading a clone instead leaves a large body's other half unread).
 */
async function withCheckedJson(request: Request): Promise<Request | Response> {
  // better-auth answers a body it does not take.
  if (mediaTypeOf(request) !== "application/json") return request;
  try {
    const body = JSON.stringify(validateInput(await readJsonBody(request), z.unknown()));
    const headers = new Headers(request.headers);
    headers.delete("content-length");
    return new Request(request.url, { method: request.method, headers, body, signal: request.signal });
  } catch (error) {
    if (!(error instanceof RequestRefusal)) throw error;
    return jsonAnswer(error.body, { status: error.status });
  }
}

/**
 * The request with the address better-auth's per-address limit keys on, as
 * the server established it (lib/server/auth/client-address.ts): the socket's,
 * or with PLAYGROUND_TRUSTED_PROXY the one the proxy saw. Whatever the client
 * sent under that name is dropped.
 */
function withClientAddress(request: Request): Request {
  const headers = new Headers(request.headers);
  headers.delete(CLIENT_ADDRESS_HEADER);
  const address = readClientAddress(request.headers, readTrustedProxyHops());
  if (address) headers.set(CLIENT_ADDRESS_HEADER, address);
  headers.delete(PEER_ADDRESS_HEADER);
  return new Request(request, { headers });
}

/**
 * Sign-in limited per account too, from any number of addresses: each
 * attempt counts against its email, and one that succeeds is given back.
 */
async function signInWithAccountLimit(
  request: Request,
  handle: (request: Request) => Promise<Response>,
): Promise<Response> {
  const email = await readEmail(request.clone());
  if (email === null) return handle(request);
  const limiter = getAccountAttemptLimiter();
  const taken = limiter.take(email);
  if (!taken.allowed) {
    return jsonAnswer(
      { code: "TOO_MANY_ATTEMPTS", message: "Too many sign-in attempts for this account: try again later." },
      { status: 429, headers: { "retry-after": String(taken.retryAfterSeconds) } },
    );
  }
  const response = await handle(request);
  if (response.ok) limiter.giveBack(email);
  return response;
}

async function readEmail(request: Request): Promise<string | null> {
  try {
    const body = (await request.json()) as { email?: unknown };
    return typeof body.email === "string" ? accountAttemptsKey(body.email) : null;
  } catch {
    return null; // better-auth answers a body it cannot read
  }
}

function notFound(): Response {
  return new Response("Not Found", { status: 404 });
}

export const { PUT, PATCH, DELETE, OPTIONS } = answerOtherMethods({ GET, POST });
