import "server-only";
import { and, asc, count, desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apikey, user } from "@/db/schema";
import { capPersonName, RuntimeError } from "@/lib/runtime";
import {
  AGENT_OWNER_ROLE,
  AGENT_OWNER_RULE,
  hasRole,
  isRole,
  mayOwnAgentToken,
  type Role,
} from "@/lib/wire/roles";
import { type Auth, createAuth } from "./auth";
import { forgetAuthChange } from "./identity-cache";
import { readTokenRole } from "./token-metadata";

/** A person who can sign in, as the admin pages and the CLI list them. */
export interface UserSummary {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** False once an admin deactivated them: no sign-in, no session, no working token. */
  isActive: boolean;
  createdAt: string;
}

/** An API token as it is listed: never its secret, which is shown once when created. */
export interface TokenSummary {
  id: string;
  name: string;
  ownerEmail: string;
  /** What the token may do at most (its own limit; it never acts above its owner's current role). */
  role: Role;
  /** The stored metadata named no role the app knows: the token is limited to the narrowest, `viewer`. */
  isRoleUnknown: boolean;
  start: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

/**
 * Account management refused for a reason a person can act on (a taken name,
 * a role too high). A runtime error, so the error table maps it by brand.
 */
export class AccountError extends RuntimeError {
  static override readonly brand: string = "AccountError";
  declare readonly code: AccountErrorCode;
  constructor(code: AccountErrorCode, message: string) {
    super(code, message);
  }
}

type AccountErrorCode = "invalid_request" | "forbidden" | "not_found" | "account_exists";

/**
 * The refusal to add a person whose e-mail an account already has, naming the
 * stored address: better-auth keeps e-mails lower-case and finds them whatever
 * their case, so `Ada@Example.com` is `ada@example.com`'s account.
 */
export function accountExistsError(existingEmail: string, requestedEmail: string): AccountError {
  const sameButCase = existingEmail !== requestedEmail;
  return new AccountError(
    "account_exists",
    `${existingEmail} already has an account${
      sameButCase ? ` (${requestedEmail} is the same address: letter case does not count)` : ""
    }.`,
  );
}

export async function countUsers(db: Db): Promise<number> {
  const [row] = await db.select({ total: count() }).from(user);
  return row?.total ?? 0;
}

export async function listUsers(db: Db): Promise<UserSummary[]> {
  const rows = await db.select().from(user).orderBy(asc(user.createdAt));
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    name: capPersonName(row.name), // a name stored before names were limited is listed cut
    role: isRole(row.role) ? row.role : "viewer",
    isActive: !row.banned,
    createdAt: row.createdAt.toISOString(),
  }));
}

/** Creates a person who can sign in with this password (better-auth hashes it). */
export async function createUser(
  auth: Auth,
  input: { email: string; name: string; password: string; role: Role },
): Promise<UserSummary> {
  try {
    const { user: created } = await auth.api.createUser({
      // The admin plugin's types know only its default roles; it stores any role name as given.
      body: { email: input.email, name: input.name, password: input.password, role: input.role as "admin" },
    });
    return {
      id: created.id,
      email: created.email,
      name: created.name,
      role: input.role,
      isActive: true,
      createdAt: new Date(created.createdAt).toISOString(),
    };
  } catch (error) {
    const body = (error as { body?: { code?: string; message?: string } }).body;
    // Its check, not ours, found the account (a caller without the account-changes lock): the same conflict.
    if (body?.code?.startsWith("USER_ALREADY_EXISTS")) {
      throw accountExistsError(input.email.toLowerCase(), input.email);
    }
    throw new AccountError(
      "invalid_request",
      body?.message ?? `The user ${input.email} could not be created.`,
    );
  }
}

/** The advisory lock the first-admin set-up holds (any constant other locks do not use). */
const FIRST_ADMIN_LOCK_KEY = 7_290_029_001;

/**
 * The first administrator of a fresh database. Refused once anyone exists,
 * so the setup page cannot be used to take over an installed app. Many
 * submissions at once (several people, several instances) make one admin:
 * the check and the insert share one transaction under an advisory lock, so
 * the second to take the lock sees the first one's committed user.
 */
export async function createFirstAdmin(
  auth: Auth,
  db: Db,
  input: { email: string; name: string; password: string },
): Promise<UserSummary> {
  const { secret } = await auth.$context;
  return db.transaction(async (transaction) => {
    await transaction.execute(sql`select pg_advisory_xact_lock(${FIRST_ADMIN_LOCK_KEY})`);
    if ((await countUsers(transaction)) > 0) {
      throw new AccountError("forbidden", "An administrator already exists: sign in instead.");
    }
    // The same auth rules on this transaction, so the user is inserted under the lock
    // (on PGlite, the process-wide database waits while the transaction holds it).
    return createUser(createAuth(transaction, secret), { ...input, role: "admin" });
  });
}

/**
 * Seeds the first administrator from PLAYGROUND_ADMIN_EMAIL and
 * PLAYGROUND_ADMIN_PASSWORD when no user exists (demos, tests), as the
 * set-up page would: instances starting at once make one. Returns whether it
 * created one.
 */
export async function seedAdminFromEnv(auth: Auth, db: Db, env = process.env): Promise<boolean> {
  const email = env.PLAYGROUND_ADMIN_EMAIL;
  const password = env.PLAYGROUND_ADMIN_PASSWORD;
  if (!email || !password || (await countUsers(db)) > 0) return false;
  try {
    await createFirstAdmin(auth, db, { email, password, name: email.split("@")[0] ?? email });
    return true;
  } catch (error) {
    if (AccountError.isInstance(error) && error.code === "forbidden") return false;
    throw error;
  }
}

async function findUserByEmail(db: Db, email: string) {
  const [row] = await db.select().from(user).where(eq(user.email, email.toLowerCase()));
  if (!row) throw new AccountError("not_found", `No user ${email}.`);
  return row;
}

/**
 * Creates a named API token for a user, acting with `role` (never above the
 * user's own role, nor above the role of whoever creates it; `agent` only
 * when both may start runs). Returns the token, which is stored only as a
 * hash: this is the one time it is seen.
 */
export async function createToken(
  auth: Auth,
  db: Db,
  input: { email: string; name: string; role?: Role; creatorRole?: Role },
): Promise<{ token: string; summary: TokenSummary }> {
  if (!/^[\w .@-]{1,64}$/.test(input.name)) {
    throw new AccountError(
      "invalid_request",
      "A token's name is 1-64 letters, digits, spaces, '.', '@', '_' or '-'.",
    );
  }
  const owner = await findUserByEmail(db, input.email);
  const ownerRole = isRole(owner.role) ? owner.role : "viewer";
  const role = input.role ?? ownerRole;
  const creatorRole = input.creatorRole ?? ownerRole;
  for (const [limit, whose] of [
    [ownerRole, "its owner's"],
    [creatorRole, "your"],
  ] as const) {
    if (!hasRole(limit, role)) {
      throw new AccountError(
        "forbidden",
        `A token's role can be at most ${whose} role (${limit}), not ${role}.`,
      );
    }
  }
  // An agent token starts runs, which `agent` ranking lowest would not keep from the owner or from its maker.
  if (role === "agent" && !mayOwnAgentToken(ownerRole)) {
    throw new AccountError("forbidden", `${AGENT_OWNER_RULE}; ${owner.email} is ${ownerRole}.`);
  }
  if (role === "agent" && !mayOwnAgentToken(creatorRole)) {
    throw new AccountError(
      "forbidden",
      `An agent token starts runs, so only an ${AGENT_OWNER_ROLE} or above makes one; you act as ${creatorRole}.`,
    );
  }
  // Names are unique per owner (a unique index decides a race), so the refusal says nothing about anyone else's.
  const nameTaken = new AccountError(
    "invalid_request",
    `${owner.email} already has a token named "${input.name}".`,
  );
  const hasName = async () =>
    (
      await db
        .select({ id: apikey.id })
        .from(apikey)
        .where(and(eq(apikey.referenceId, owner.id), eq(apikey.name, input.name)))
    ).length > 0;
  if (await hasName()) throw nameTaken;
  let created: Awaited<ReturnType<Auth["api"]["createApiKey"]>>;
  try {
    created = await auth.api.createApiKey({
      body: { name: input.name, userId: owner.id, metadata: { role } },
    });
  } catch (error) {
    if (await hasName()) throw nameTaken;
    throw error;
  }
  return {
    token: created.key,
    summary: {
      id: created.id,
      name: input.name,
      ownerEmail: owner.email,
      role,
      isRoleUnknown: false,
      start: created.start ?? null,
      createdAt: new Date(created.createdAt).toISOString(),
      lastUsedAt: null,
    },
  };
}

export async function listTokens(db: Db): Promise<TokenSummary[]> {
  const rows = await db
    .select({ token: apikey, ownerEmail: user.email })
    .from(apikey)
    .innerJoin(user, eq(user.id, apikey.referenceId))
    .orderBy(desc(apikey.createdAt));
  return rows.map(({ token, ownerEmail }) => {
    const role = readTokenRole(token.metadata);
    return {
      id: token.id,
      name: token.name ?? "",
      ownerEmail,
      role: role ?? "viewer",
      isRoleUnknown: role === null,
      start: token.start,
      createdAt: token.createdAt.toISOString(),
      lastUsedAt: token.lastRequest?.toISOString() ?? null,
    };
  });
}

/**
 * Revokes one token by its id (only one of `ownerId`'s, when given: a person
 * who is not an admin revokes their own tokens only): it stops working at
 * once, everywhere. Another person's token is "not found", as one that never
 * existed.
 */
export async function revokeToken(db: Db, id: string, ownerId?: string): Promise<TokenSummary["id"]> {
  const deleted = await db
    .delete(apikey)
    .where(
      ownerId === undefined ? eq(apikey.id, id) : and(eq(apikey.id, id), eq(apikey.referenceId, ownerId)),
    )
    .returning({ id: apikey.id });
  if (deleted.length === 0) {
    throw new AccountError(
      "not_found",
      ownerId === undefined ? `No token ${id}.` : `You have no token ${id}.`,
    );
  }
  // Committed: this instance forgets it now, the others as they hear it (identity-cache.ts).
  forgetAuthChange({ token: id });
  return id;
}

/**
 * The one token a name designates among `tokens` (a name is unique per
 * owner, so with `ownerEmail` at most one matches; without, the name must be
 * unique across everyone's). An id designates itself. Refuses a name two
 * people use rather than guess which.
 */
export function findTokenToRevoke(
  tokens: TokenSummary[],
  nameOrId: string,
  ownerEmail?: string,
): TokenSummary {
  const candidates = tokens.filter(
    (token) => ownerEmail === undefined || token.ownerEmail.toLowerCase() === ownerEmail.toLowerCase(),
  );
  const byId = candidates.find((token) => token.id === nameOrId);
  if (byId) return byId;
  const named = candidates.filter((token) => token.name === nameOrId);
  const [only, ...others] = named;
  if (!only) {
    throw new AccountError(
      "not_found",
      `No token named "${nameOrId}"${ownerEmail === undefined ? "" : ` of ${ownerEmail}`}.`,
    );
  }
  if (others.length > 0) {
    throw new AccountError(
      "invalid_request",
      `${named.length} tokens are named "${nameOrId}" (${named
        .map((token) => `${token.id} of ${token.ownerEmail}`)
        .join(", ")}): give the owner's email with --email, or the token's id.`,
    );
  }
  return only;
}
