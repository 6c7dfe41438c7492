/**
 * How long the suite's production servers (`npm start`) keep an idle connection open (`--keepAliveTimeout`).
 * Node closes one after 5 s by default, and Playwright's request context, which keeps connections
 * alive, may send its next request on one just as the server closes it: `read ECONNRESET` (CI, on a
 * GET after some seconds of browser steps). A browser resends such a request by itself; the request
 * context does not. Longer than any test, so no connection a test holds is ever closed under it.
 * Only for the suite's two servers, which the run ends by killing them: a server a spec starts and
 * stops itself (production-server.ts) keeps Node's default, since its graceful stop waits for the
 * connections open then to close (CI: a stop that waited for minutes).
 */
export const KEEP_ALIVE_MS = 10 * 60_000;

/**
 * For a read sent through Playwright's request context: sent once more if the connection it went
 * out on was closed under it (`ECONNRESET`), as a browser resends it. A server a spec starts itself
 * keeps Node's 5 s keep-alive (above), so a read after some seconds of browser steps may go out on a
 * connection the server is closing just then (CI: `GET /api/runs/…/view` after a cold page load in
 * 16-recovering). Only for reads: sending a write twice is not the same as sending it once.
 */
export const RESENT_ONCE_IF_RESET = { maxRetries: 1 } as const;
