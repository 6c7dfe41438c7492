/**
 * The Content-Security-Policy every response runs under, with a fresh nonce
 * per request (proxy.ts makes it; Next puts it on its own script tags, read
 * from the request's copy of this header). Scripts run only with the nonce,
 * and what they load ('strict-dynamic'): no inline script an attacker could
 * inject, no eval. Styles keep 'unsafe-inline' (React's `style` attributes
 * and Next's inline styles). Everything else (streams, fetches) comes from
 * this origin only, and no other site may frame the app. `next dev` also
 * talks to its reload socket and evaluates code for its error overlay, so
 * only there 'unsafe-eval' is added.
 */
export function buildContentSecurityPolicy(nonce: string, isDevelopment: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${isDevelopment ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${isDevelopment ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** 128 random bits, base64: unguessable, and new for every request. */
export function createNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}
