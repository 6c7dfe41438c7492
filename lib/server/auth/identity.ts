import "server-only";
import { capPersonName } from "@/lib/runtime";
import { isRole, lesserRole } from "@/lib/wire/roles";
import { getAuth } from "../server-context";
import type { Auth } from "./auth";
import type { Identity } from "./request-identity";
import { tokenCacheOf, type VerifiedToken } from "./token-cache";
import { readTokenRole } from "./token-metadata";

export type { Identity } from "./request-identity";

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

function readTokenIdentity(auth: Auth, key: string): Promise<Identity | null> {
  const cache = tokenCacheOf(auth);
  if (!cache) return verifyToken(auth, key).then((verified) => verified?.identity ?? null);
  return cache.read(key, () => verifyToken(auth, key));
}

/** Reads a token and its owner from the database (recording the token's use there). */
async function verifyToken(auth: Auth, key: string): Promise<VerifiedToken | null> {
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
  const identity: Identity = {
    userId: owner.id,
    name: capPersonName(owner.name),
    email: owner.email,
    role: lesserRole(ownerRole, tokenRole),
    personRole: ownerRole,
    via: "token",
    sessionId: null,
    token: { id: verified.key.id, name: verified.key.name ?? verified.key.id },
  };
  const expiresAt = verified.key.expiresAt ? new Date(verified.key.expiresAt).getTime() : null;
  return { identity, expiresAt };
}
