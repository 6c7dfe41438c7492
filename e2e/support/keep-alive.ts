/**
 * How long the suite's `next start` servers keep an idle connection open (`--keepAliveTimeout`).
 * Node closes one after 5 s by default, and Playwright's request context, which keeps connections
 * alive, may send its next request on one just as the server closes it: `read ECONNRESET` (CI, on a
 * GET after some seconds of browser steps). A browser resends such a request by itself; the request
 * context does not. Longer than any test, so no connection a test holds is ever closed under it.
 */
export const KEEP_ALIVE_MS = 10 * 60_000;
