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
  const policy = buildContentSecurityPolicy(createNonce(), process.env.NODE_ENV !== "production");
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: ["/((?!api/|_next/static|_next/image|favicon.ico).*)"],
};
