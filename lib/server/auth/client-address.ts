import type { IncomingMessage, Server } from "node:http";

/**
 * The socket's remote address, stamped on every request by the server itself
 * ({@link stampPeerAddresses}); a value a client sends under this name is
 * overwritten. Next's route handlers get a `Request` without its socket, and
 * Next fills `X-Forwarded-For` from the socket only when the client sent none.
 */
export const PEER_ADDRESS_HEADER = "x-playground-peer-address";

/**
 * The address sign-in is rate limited by (better-auth reads it): set by the
 * /api/auth route from {@link readClientAddress}, never taken from the client.
 */
export const CLIENT_ADDRESS_HEADER = "x-playground-client-address";

/**
 * How many proxies in front of the app append to `X-Forwarded-For`
 * (PLAYGROUND_TRUSTED_PROXY): 0 (unset) trusts no forwarded header. Anything
 * but a whole number is a configuration error, said at once.
 */
export function readTrustedProxyHops(env: Record<string, string | undefined> = process.env): number {
  const value = env.PLAYGROUND_TRUSTED_PROXY?.trim();
  if (!value) return 0;
  if (!/^\d{1,2}$/.test(value)) {
    throw new Error(
      `PLAYGROUND_TRUSTED_PROXY must be the number of proxies in front of the app (0, 1, 2, …), not "${value}".`,
    );
  }
  return Number(value);
}

/**
 * Who a request comes from, for rate limits: with `hops` trusted proxies, the
 * address the outermost of them saw (the `hops`-th entry of
 * `X-Forwarded-For` from the right: entries further left are the client's own
 * claims); with none, the socket's address. Null when neither is known.
 */
export function readClientAddress(headers: Headers, hops: number): string | null {
  if (hops > 0) {
    const forwarded = (headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean);
    const seen = forwarded[forwarded.length - hops];
    if (seen) return seen;
  }
  return headers.get(PEER_ADDRESS_HEADER) || null;
}

const STAMPED = Symbol.for("tool-playground.peer-address-stamped");

/**
 * Makes every HTTP server in this process put the socket's address on each
 * request as {@link PEER_ADDRESS_HEADER}, replacing any value the client sent.
 * Next (`next start`, `next dev`) serves from an `http.Server` in the process
 * that runs instrumentation.ts, so wrapping `emit` there reaches its requests
 * before Next builds the route handler's `Request`. Idempotent.
 */
export function stampPeerAddresses(serverClass: { prototype: Server }): void {
  const prototype = serverClass.prototype as Server & { [STAMPED]?: true };
  if (prototype[STAMPED]) return;
  const emit = prototype.emit;
  prototype.emit = function emitWithPeerAddress(this: Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const request = args[0] as IncomingMessage;
      request.headers[PEER_ADDRESS_HEADER] = request.socket?.remoteAddress ?? "";
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof emit;
  prototype[STAMPED] = true;
}
