import "server-only";
import { capPersonName } from "@/lib/runtime";
import { isRole, lesserRole } from "@/lib/wire/roles";
import { getAuth } from "../server-context";
import type { Auth } from "./auth";
import { identityCacheOf, type VerifiedIdentity } from "./identity-cache";
import type { Identity } from "./request-identity";
import { readTokenRole } from "./token-metadata";

export type { Identity } from "./request-identity";

/**
 * The identity of a request: an API token in `Authorization: Bearer`, else
 * the session cookie. A token acts with the lesser of its own role and its
 * owner's current role; a banned user, a revoked token or an expired session
 * is no identity at all. Both are kept briefly in this instance's identity
 * cache, which forgets them at once on any change (identity-cache.ts).
 */
export async function readIdentity(headers: Headers, auth?: Auth): Promise<Identity | null> {
  const authority = auth ?? (await getAuth());
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "")?.[1];
  if (bearer) return readCached(authority, `token ${bearer}`, () => verifyToken(authority, bearer));
  const cookies = headers.get("cookie");
  if (!cookies) return null;
  // Keyed by the whole Cookie header, exactly what better-auth reads the session from.
  return readCached(authority, `session ${cookies}`, () => verifySession(authority, headers));
}

function readCached(
  auth: Auth,
  key: string,
  verify: () => Promise<VerifiedIdentity | null>,
): Promise<Identity | null> {
  const cache = identityCacheOf(auth);
  if (!cache) return verify().then((verified) => verified?.identity ?? null);
  return cache.read(key, verify);
}

/** Reads a session and its person from the database. */
async function verifySession(auth: Auth, headers: Headers): Promise<VerifiedIdentity | null> {
  const found = await auth.api.getSession({ headers });
  if (!found || found.user.banned) return null;
  const role = isRole(found.user.role) ? found.user.role : "viewer";
  const identity: Identity = {
    userId: found.user.id,
    name: capPersonName(found.user.name),
    email: found.user.email,
    role,
    personRole: role,
    via: "session",
    sessionId: found.session.id,
  };
  return { identity, expiresAt: new Date(found.session.expiresAt).getTime() };
}

/** Reads a token and its owner from the database (recording the token's use there). */
async function verifyToken(auth: Auth, key: string): Promise<VerifiedIdentity | null> {
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
