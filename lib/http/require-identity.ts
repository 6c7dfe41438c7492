import "server-only";
import { StoreUnavailableError } from "@/lib/runtime";
import { type Identity, readIdentity } from "@/lib/server/auth/identity";
import { checkDatabaseHealth } from "@/lib/server/ops/check-database-health";
import { RequestRefusal } from "@/lib/wire/request-refusal";
import { hasRole, type Role } from "@/lib/wire/roles";

/**
 * The identity behind a request, holding at least `role`: 401
 * `unauthenticated` without one, 403 `forbidden` (naming the role needed)
 * when it holds less. The one check every route handler and server action
 * passes through. A lookup that fails for want of a database is 503
 * `database_unavailable`, never 401: a valid token or session is not
 * turned away as unknown because it could not be looked up.
 */
export async function requireIdentity(headers: Headers, role: Role): Promise<Identity> {
  const identity = await lookUpIdentity(headers);
  if (!identity) throw RequestRefusal.of("unauthenticated", describeMissingIdentity(headers));
  if (!hasRole(identity.role, role))
    throw RequestRefusal.of("forbidden", describeMissingRole(identity, role));
  return identity;
}

/**
 * {@link readIdentity}, telling "no such identity" from "could not look it
 * up": better-auth answers a failed lookup as no session or an invalid key,
 * so a request that presented credentials and found none asks the database
 * whether it is there at all. Down: 503. Up again (it came back meanwhile):
 * the lookup is made once more, and only what that finds is believed.
 */
export async function lookUpIdentity(headers: Headers): Promise<Identity | null> {
  try {
    const identity = await readIdentity(headers);
    if (identity !== null || !presentsCredentials(headers)) return identity;
  } catch (error) {
    if (await isDatabaseDown()) throw new StoreUnavailableError(undefined, { cause: error });
    return readIdentity(headers);
  }
  if (await isDatabaseDown()) throw new StoreUnavailableError();
  return readIdentity(headers);
}

/**
 * Why a request has no identity, from what it sent: nothing, a token that is not (or no longer) one,
 * or a session that has ended. Which of unknown, revoked, expired or deactivated a token is stays
 * unsaid: the sender knows what they sent, and a stranger learns nothing.
 */
function describeMissingIdentity(headers: Headers): string {
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    return /^Bearer\s+\S/i.test(authorization)
      ? "The API token sent is not valid: unknown, revoked or expired, or its owner deactivated. Send a valid one as Authorization: Bearer <token>."
      : "The Authorization header is not an API token: send one as Authorization: Bearer <token>.";
  }
  if (presentsCredentials(headers)) return "The session has ended or is not valid: sign in again.";
  return "Sign in, or send an API token as Authorization: Bearer <token>.";
}

/** A bearer token, or a cookie that may be a session: something that had to be looked up. */
function presentsCredentials(headers: Headers): boolean {
  return headers.has("authorization") || /session_token=/.test(headers.get("cookie") ?? "");
}

async function isDatabaseDown(): Promise<boolean> {
  return !(await checkDatabaseHealth()).ok;
}

/**
 * Why an identity lacks a role, naming what limits it: the person's own role,
 * or, when the person has the role but the token they sent does not, the token.
 * An agent's token is named as one, never its owner: the agent is not the person.
 * The role is named, not what it is for: a role reaches many routes (admin: users and tokens, the
 * policy, faults, metrics), and a summary of one read as the reason on every other.
 */
function describeMissingRole(identity: Identity, role: Role): string {
  const needed = `This needs the ${role} role`;
  if (identity.via === "token" && identity.role === "agent") {
    return `${needed}; the API token sent is an agent's, which reaches only the agent API (/api/agent/runs).`;
  }
  // The person may do it, but the token they sent may not.
  const isTokenTheLimit = identity.via === "token" && hasRole(identity.personRole, role);
  return isTokenTheLimit
    ? `${needed}; the API token sent is limited to the ${identity.role} role (${identity.email} is ${identity.personRole}): use a token made with the ${role} role.`
    : `${needed}; ${identity.email} is ${identity.role}.`;
}
