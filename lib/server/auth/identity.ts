import "server-only";
import { capPersonName } from "@/lib/runtime";
import { type Auth, getAuth } from "./auth";
import { isRole, lesserRole, type Role } from "./roles";
import { readTokenRole } from "./token-metadata";

/** Who a request comes from, as the server established it: never taken from the request body. */
export interface Identity {
  userId: string;
  /** The person's display name, at most MAX_PERSON_NAME_LENGTH characters (older names are cut). */
  name: string;
  email: string;
  role: Role;
  /** The person's own role (for a token, its owner's): `role` is less when the token sent is limited to less. */
  personRole: Role;
  /** A signed-in browser session, or an API token (`Authorization: Bearer tp_…`). */
  via: "session" | "token";
  /** The session's id (null for a token): signing out closes what it opened. */
  sessionId: string | null;
  /** The API token sent, when one was: an agent's runs belong to the token that opened them. */
  token?: { id: string; name: string };
}

/**
 * The identity of a request: an API token in `Authorization: Bearer`, else
 * the session cookie. A token acts with the lesser of its own role and its
 * owner's current role; a banned user, a revoked token or an expired session
 * is no identity at all.
 */
export async function readIdentity(headers: Headers, auth?: Auth): Promise<Identity | null> {
  const authority = auth ?? (await getAuth());
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "")?.[1];
  if (bearer) return readTokenIdentity(authority, bearer);
  const found = await authority.api.getSession({ headers });
  if (!found || found.user.banned) return null;
  return {
    userId: found.user.id,
    name: capPersonName(found.user.name),
    email: found.user.email,
    role: isRole(found.user.role) ? found.user.role : "viewer",
    personRole: isRole(found.user.role) ? found.user.role : "viewer",
    via: "session",
    sessionId: found.session.id,
  };
}

async function readTokenIdentity(auth: Auth, key: string): Promise<Identity | null> {
  const verified = await auth.api.verifyApiKey({ body: { key } });
  if (!verified.valid || !verified.key) return null;
  const owner = (await (await auth.$context).internalAdapter.findUserById(verified.key.referenceId)) as {
    id: string;
    name: string;
    email: string;
    role?: string | null;
    banned?: boolean | null;
  } | null;
  if (!owner || owner.banned) return null;
  const ownerRole = isRole(owner.role) ? owner.role : "viewer";
  // Metadata without a role the app knows limits the token to the narrowest role.
  const tokenRole = readTokenRole(verified.key.metadata) ?? "viewer";
  return {
    userId: owner.id,
    name: capPersonName(owner.name),
    email: owner.email,
    role: lesserRole(ownerRole, tokenRole),
    personRole: ownerRole,
    via: "token",
    sessionId: null,
    token: { id: verified.key.id, name: verified.key.name ?? verified.key.id },
  };
}
