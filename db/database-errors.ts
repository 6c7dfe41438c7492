/**
 * Which database failures pass by themselves (the server restarting, a
 * connection cut, a connection refused), as opposed to refusals (a
 * constraint, bad SQL) that the same statement would meet again. Drivers
 * and drizzle wrap errors (`cause`, `AggregateError.errors`), so the whole
 * chain is read.
 */

/** Socket errors and postgres-js's own codes of a connection that is gone or never came. */
const TRANSIENT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  // SQLSTATE: admin shutdown, crash shutdown, cannot connect now (starting up), too many connections,
  // a statement cancelled by its timeout (the server is too slow to answer now).
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "57014",
]);

/** Codes of a connection that was never made: nothing was sent, so even a write may be tried again. */
const NEVER_CONNECTED_CODES = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECT_TIMEOUT",
  "57P03",
  "53300",
  "08001",
  "08004",
]);

/** Messages of drivers that give no code (PGlite's, postgres-js's for a socket closed mid-query). */
const TRANSIENT_MESSAGES = [
  /^connection terminated/i,
  /terminating connection due to administrator command/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
  /write (?:CONNECTION_CLOSED|EPIPE)/i,
];

function* chainOf(error: unknown, depth = 0): Generator<unknown> {
  if (error === null || error === undefined || depth > 6) return;
  yield error;
  if (typeof error !== "object") return;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (cause !== undefined && cause !== error) yield* chainOf(cause, depth + 1);
  if (Array.isArray(errors)) for (const inner of errors) yield* chainOf(inner, depth + 1);
}

function codeOf(error: unknown): string | null {
  if (typeof error !== "object" || error === null) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : null;
}

/** True when `error` (or what it wraps) is the database being out of reach, not a refusal. */
export function isTransientDatabaseError(error: unknown): boolean {
  for (const link of chainOf(error)) {
    const code = codeOf(link);
    // Class 08: connection exceptions.
    if (code && (TRANSIENT_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
    const message = link instanceof Error ? link.message : typeof link === "string" ? link : "";
    if (TRANSIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/** True when the statement never reached a server (no connection was made): trying a write again cannot repeat it. */
export function isNeverConnectedError(error: unknown): boolean {
  for (const link of chainOf(error)) {
    const code = codeOf(link);
    if (code && NEVER_CONNECTED_CODES.has(code)) return true;
  }
  return false;
}

/** Waits between attempts: 100, 300, 900 ms (with a little jitter), then gives up. */
export const RETRY_DELAYS_MS = [100, 300, 900] as const;

/**
 * Runs `work`, trying again after a transient failure while `mayRetry`
 * allows it (reads: any transient failure; writes: only one that never
 * reached the server), with backoff; rethrows the last failure.
 */
export async function withDatabaseRetries<T>(
  work: () => Promise<T>,
  mayRetry: (error: unknown) => boolean = isTransientDatabaseError,
  delays: readonly number[] = RETRY_DELAYS_MS,
): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      const delay = delays[attempt];
      if (delay === undefined || !mayRetry(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay * (0.8 + Math.random() * 0.4)));
    }
  }
}
