import { type NextRequest, NextResponse } from "next/server";
import { buildContentSecurityPolicy, createNonce } from "@/lib/http/content-security-policy";
import { refuseDeepActionBody } from "@/lib/http/refuse-deep-action-body";

/**
 * Runs before every page request (and server action call, which is posted to a page); not before
 * API routes (their bodies stream on untouched; next.config.mjs gives them a CSP that allows
 * nothing) nor Next's static files:
 * - a server action's body nested too deep is refused here, before Next
 *   decodes its arguments (recursively), with the 400 every other surface
 *   gives (lib/http/refuse-deep-action-body.ts);
 * - every response gets the Content-Security-Policy with a nonce of its own;
 *   the request carries the same header, from which Next takes the nonce for
 *   its scripts (lib/http/content-security-policy.ts).
 */
export async function proxy(request: NextRequest) {
  if (request.headers.has("next-action")) {
    const refused = await refuseDeepActionBody(request);
    if (refused) return refused;
  }
  if (isStrangersPageLoad(request)) {
    // Nothing rendered, so nothing to leak: the page's own check (requirePageIdentity) still
    // decides for every request that carries credentials, forged or not, and for the client router.
    const { pathname, search } = request.nextUrl;
    const signIn = new URL("/sign-in", request.nextUrl);
    if (pathname !== "/" || search !== "") signIn.searchParams.set("next", pathname + search);
    // Next sends a redirect to its own origin as a path (/sign-in?next=…).
    return NextResponse.redirect(signIn, 307);
  }
  const policy = buildContentSecurityPolicy(createNonce(), process.env.NODE_ENV !== "production");
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", policy);
  return response;
}

/** Pages anyone may open: the sign-in and first-administrator set-up. */
const PUBLIC_PAGES = new Set(["/sign-in", "/setup"]);

/**
 * Decision links answer a stranger themselves (lib/http/decision-link-route.ts): with the same
 * redirect to sign-in by default, or, where the operator lets the link alone decide, its confirm page
 * (docs/notifications.md#the-link-alone). They render no app page and read no run before the link
 * is checked.
 */
const DECISION_LINKS = "/decision-links/";

/**
 * A browser's page load (a document asked for as HTML) with no session cookie and no API token, of
 * a page that needs a person. Not the client router's fetches and prefetches: Next hides their RSC
 * headers from the proxy, and a redirect here would be cached as the page itself (after signing
 * in, the prefetched `/` led back to sign-in); they take the page's own redirect, inside the payload.
 */
function isStrangersPageLoad(request: NextRequest): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  if (PUBLIC_PAGES.has(request.nextUrl.pathname)) return false;
  if (request.nextUrl.pathname.startsWith(DECISION_LINKS)) return false;
  if (!(request.headers.get("accept") ?? "").includes("text/html")) return false;
  const destination = request.headers.get("sec-fetch-dest");
  if (destination !== null && destination !== "document") return false;
  if (request.headers.has("authorization")) return false;
  return !request.cookies.getAll().some((cookie) => cookie.name.endsWith("better-auth.session_token"));
}

export const config = {
  // `api(?:/|$)`: /api itself is the API's too (its 404, app/api/[[...path]]/route.ts), not a page a
  // stranger's browser is sent to sign in for.
  matcher: ["/((?!api(?:/|$)|_next/static|_next/image|favicon.ico).*)"],
};
