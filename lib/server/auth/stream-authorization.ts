import "server-only";
import { registerSessionStream } from "@/lib/server/streams/open-streams";
import type { SseChannel } from "@/lib/server/streams/sse-channel";
import { hasRole, type Role } from "@/lib/wire/roles";
import { type Identity, readIdentity } from "./identity";

/** How often an open stream re-checks that whoever opened it may still read it. */
export const STREAM_REAUTHORIZE_MS = 15_000;

/** Who may read a stream of `role`'s: anyone whose identity has that role, as the route's own check. */
export function holdsRole(role: Role): (current: Identity) => boolean {
  return (current) => hasRole(current.role, role);
}

/**
 * Keeps a stream open only while its reader is allowed to read it (`mayStillRead`, the route's
 * own rule, run against the identity its credential has now): signing out on this instance closes
 * it at once; a session that ends elsewhere (sign out on another instance, expiry, a revoked token,
 * a lowered role, an agent token's owner no longer allowed agents) closes it within
 * {@link STREAM_REAUTHORIZE_MS}. Returns the function that stops watching.
 */
export function closeWhenUnauthorized(
  channel: SseChannel,
  request: Request,
  identity: Identity,
  mayStillRead: (current: Identity) => boolean,
): () => void {
  const forgetSession = identity.sessionId ? registerSessionStream(identity.sessionId, channel) : () => {};
  const recheck = setInterval(async () => {
    const current = await readIdentity(request.headers).catch(() => null);
    if (!current || !mayStillRead(current)) channel.close();
  }, STREAM_REAUTHORIZE_MS);
  return () => {
    clearInterval(recheck);
    forgetSession();
  };
}
