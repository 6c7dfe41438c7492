import "server-only";
import { registerSessionStream } from "@/lib/server/streams/open-streams";
import type { SseChannel } from "@/lib/server/streams/sse-channel";
import { hasRole, type Role } from "@/lib/wire/roles";
import { type Identity, readIdentity } from "./identity";

/** How often an open stream re-checks that whoever opened it may still read it. */
export const STREAM_REAUTHORIZE_MS = 15_000;

/**
 * Keeps a stream open only while its reader is allowed to read it: signing
 * out on this instance closes it at once; a session that ends elsewhere (sign
 * out on another instance, expiry, a revoked token, a lowered role) closes it
 * within {@link STREAM_REAUTHORIZE_MS}. Returns the function that stops watching.
 */
export function closeWhenUnauthorized(
  channel: SseChannel,
  request: Request,
  identity: Identity,
  role: Role,
): () => void {
  const forgetSession = identity.sessionId ? registerSessionStream(identity.sessionId, channel) : () => {};
  const recheck = setInterval(async () => {
    const current = await readIdentity(request.headers).catch(() => null);
    if (!current || !hasRole(current.role, role)) channel.close();
  }, STREAM_REAUTHORIZE_MS);
  return () => {
    clearInterval(recheck);
    forgetSession();
  };
}
