import "server-only";
import { type Identity, readIdentity } from "@/lib/server/auth/identity";
import { hasRole, ROLE_ABILITIES, type Role } from "@/lib/server/auth/roles";
import { RequestRefusal } from "./refusal";

/**
 * The identity behind a request, holding at least `role`: 401
 * `unauthenticated` without one, 403 `forbidden` (naming the role needed)
 * when it holds less. The one check every route handler and server action
 * passes through.
 */
export async function requireIdentity(headers: Headers, role: Role): Promise<Identity> {
  const identity = await readIdentity(headers);
  if (!identity) {
    throw RequestRefusal.of(
      "unauthenticated",
      "Sign in, or send an API token as Authorization: Bearer <token>.",
    );
  }
  if (!hasRole(identity.role, role)) {
    throw RequestRefusal.of(
      "forbidden",
      `This needs the ${role} role (to ${ROLE_ABILITIES[role]}); ${identity.email} is ${identity.role}.`,
    );
  }
  return identity;
}
