/** What a caller may send as its own request id (a proxy's or a client's), so both sides can quote one. */
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{8,64}$/;

/**
 * The request's id: the caller's `X-Request-Id` when it is a plain token,
 * else a new one. Every response carries it back, every log line of the
 * request has it, and a "Something went wrong" shows it to quote.
 */
export function readRequestId(headers: Headers): string {
  const sent = headers.get("x-request-id");
  return sent && CALLER_REQUEST_ID.test(sent) ? sent : crypto.randomUUID();
}
