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
  if (!hasRole(identity.role, role))
    throw RequestRefusal.of("forbidden", describeMissingRole(identity, role));
  return identity;
}

/**
 * Why an identity lacks a role, naming what limits it: the person's own role,
 * or, when the person has the role but the token they sent does not, the token.
 */
function describeMissingRole(identity: Identity, role: Role): string {
  const needed = `This needs the ${role} role (to ${ROLE_ABILITIES[role]})`;
  // The person may do it, but the token they sent may not.
  const isTokenTheLimit = identity.via === "token" && hasRole(identity.personRole, role);
  return isTokenTheLimit
    ? `${needed}; the API token sent is limited to the ${identity.role} role (${identity.email} is ${identity.personRole}): use a token made with the ${role} role.`
    : `${needed}; ${identity.email} is ${identity.role}.`;
}
