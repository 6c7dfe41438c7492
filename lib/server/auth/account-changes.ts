import "server-only";
import { and, count, desc, eq, lt, ne, not, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { type AccountEventKind, account, accountEvents, session, user } from "@/db/schema";
import { RequestRefusal } from "@/lib/wire/request-refusal";
import { isRole, PERSON_ROLES, type Role } from "@/lib/wire/roles";
import { AccountError, accountExistsError, createUser, type UserSummary } from "./accounts";
import { type Auth, createAuth } from "./auth";
import { forgetAuthChange } from "./identity-cache";
import { accountAttemptsKey, getAccountAttemptLimiter } from "./sign-in-limits";

/**
 * Account changes after a person is added: a new role, deactivation (and
 * back), removal, a password set by an admin, one's own new password. Each
 * runs in one transaction under one advisory lock (two admins demoting each
 * other at once cannot leave no admin) and writes its row of the accounts
 * audit in that transaction: a change is never without its audit row.
 *
 * The admin plugin's HTTP endpoints for these are switched off
 * (DISABLED_AUTH_PATHS): they need an admin's browser session (the CLI has
 * none) and would skip these rules and the audit. The work is done through
 * better-auth's own adapter and password hashing, as those endpoints do.
 */

/** Who makes a change: a signed-in person, or null for the CLI on the database itself. */
export type AccountActor = { id: string; email: string } | null;

/** The advisory lock account changes hold (first-admin set-up uses 7_290_029_001). */
const ACCOUNT_CHANGES_LOCK_KEY = 7_290_029_002;

/** Better-auth's limits on a password (its defaults, and our minimum of 8). */
const MIN_PASSWORD_LENGTH = 8;
const MAX_PASSWORD_LENGTH = 128;

export interface AccountEvent {
  id: number;
  at: string;
  kind: AccountEventKind;
  actorEmail: string | null;
  subjectEmail: string;
  detail: string | null;
}

type Transaction = Parameters<Parameters<Db["transaction"]>[0]>[0];
type UserRow = typeof user.$inferSelect;

async function changeAccounts<T>(
  auth: Auth,
  db: Db,
  work: (transaction: Db, authority: Auth) => Promise<T>,
): Promise<T> {
  const { secret } = await auth.$context;
  return db.transaction(async (transaction: Transaction) => {
    await transaction.execute(sql`select pg_advisory_xact_lock(${ACCOUNT_CHANGES_LOCK_KEY})`);
    // The same auth rules on this transaction, so its writes commit with the audit row or not at all.
    return work(transaction as unknown as Db, createAuth(transaction as unknown as Db, secret));
  });
}

async function findUser(db: Db, email: string): Promise<UserRow> {
  const [row] = await db.select().from(user).where(eq(user.email, email.trim().toLowerCase()));
  if (!row) throw new AccountError("not_found", `No user ${email}.`);
  return row;
}

function roleOf(row: UserRow): Role {
  return isRole(row.role) ? row.role : "viewer";
}

async function countActiveAdmins(db: Db): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(user)
    .where(and(eq(user.role, "admin"), not(eq(sql`coalesce(${user.banned}, false)`, true))));
  return row?.total ?? 0;
}

/** Refuses a change that would leave no active administrator. */
async function keepAnAdmin(db: Db, subject: UserRow, change: string): Promise<void> {
  if (roleOf(subject) !== "admin" || subject.banned) return;
  if ((await countActiveAdmins(db)) <= 1) {
    throw new AccountError(
      "forbidden",
      `${subject.email} is the last administrator: make someone else an admin before you ${change}.`,
    );
  }
}

function refuseSelf(actor: AccountActor, subject: UserRow, change: string): void {
  if (actor?.id === subject.id) {
    throw new AccountError("forbidden", `You cannot ${change} yourself: ask another administrator.`);
  }
}

function checkPassword(password: string, whose: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new AccountError(
      "invalid_request",
      `${whose} must be ${MIN_PASSWORD_LENGTH}-${MAX_PASSWORD_LENGTH} characters.`,
    );
  }
}

async function recordAccountEvent(
  db: Db,
  actor: AccountActor,
  subject: { id: string; email: string },
  kind: AccountEventKind,
  detail: string | null = null,
): Promise<void> {
  await db.insert(accountEvents).values({
    kind,
    actorId: actor?.id ?? null,
    actorEmail: actor?.email ?? null,
    subjectId: subject.id,
    subjectEmail: subject.email,
    detail,
  });
}

function summarize(row: UserRow, changes: Partial<UserRow> = {}): UserSummary {
  const next = { ...row, ...changes };
  return {
    id: next.id,
    email: next.email,
    name: next.name,
    role: roleOf(next),
    isActive: !next.banned,
    createdAt: next.createdAt.toISOString(),
  };
}

/** Adds a person (as {@link createUser}) and audits it. */
export async function addUser(
  auth: Auth,
  db: Db,
  actor: AccountActor,
  input: { email: string; name: string; password: string; role: Role },
): Promise<UserSummary> {
  checkPersonRole(input.role);
  return changeAccounts(auth, db, async (transaction, authority) => {
    // Compared without case, as better-auth finds an e-mail at sign-in, and as stored (never rewritten).
    const [existing] = await transaction
      .select({ email: user.email })
      .from(user)
      .where(eq(sql`lower(${user.email})`, input.email.trim().toLowerCase()));
    if (existing) throw accountExistsError(existing.email, input.email);
    const created = await createUser(authority, input);
    await recordAccountEvent(transaction, actor, created, "user_added", `as ${created.role}`);
    return created;
  });
}

/** Gives a person another role; never takes the last active admin's. */
export async function setUserRole(
  auth: Auth,
  db: Db,
  actor: AccountActor,
  input: { email: string; role: Role },
): Promise<UserSummary> {
  checkPersonRole(input.role);
  const changed = await changeAccounts(auth, db, async (transaction, authority) => {
    const subject = await findUser(transaction, input.email);
    const before = roleOf(subject);
    if (before === input.role) return summarize(subject);
    if (input.role !== "admin") await keepAnAdmin(transaction, subject, `make them ${input.role}`);
    await (await authority.$context).internalAdapter.updateUser(subject.id, { role: input.role });
    await recordAccountEvent(transaction, actor, subject, "role_changed", `${before} → ${input.role}`);
    return summarize(subject, { role: input.role });
  });
  // Committed: this instance forgets their tokens and sessions now, the others as they hear it (identity-cache.ts).
  forgetAuthChange({ user: changed.id });
  return changed;
}

/**
 * Deactivates a person: they cannot sign in, their sessions end, and their
 * tokens stop working at once (an identity is never given to a deactivated
 * owner's token); `isActive: true` lets them back in (their tokens too).
 */
export async function setUserActive(
  auth: Auth,
  db: Db,
  actor: AccountActor,
  input: { email: string; isActive: boolean },
): Promise<UserSummary> {
  const changed = await changeAccounts(auth, db, async (transaction, authority) => {
    const subject = await findUser(transaction, input.email);
    if (!subject.banned === input.isActive) return summarize(subject);
    const adapter = (await authority.$context).internalAdapter;
    if (input.isActive) {
      await adapter.updateUser(subject.id, { banned: false, banReason: null, banExpires: null });
      await recordAccountEvent(transaction, actor, subject, "user_reactivated");
      return summarize(subject, { banned: false });
    }
    refuseSelf(actor, subject, "deactivate");
    await keepAnAdmin(transaction, subject, "deactivate them");
    await adapter.updateUser(subject.id, { banned: true, banReason: "deactivated by an administrator" });
    await adapter.deleteUserSessions(subject.id);
    await recordAccountEvent(transaction, actor, subject, "user_deactivated");
    return summarize(subject, { banned: true });
  });
  // Committed: this instance forgets their tokens and sessions now, the others as they hear it (identity-cache.ts).
  forgetAuthChange({ user: changed.id });
  return changed;
}

/**
 * Removes a person with their sessions and tokens. What they did stays: the
 * approvals audit keeps their name and id, and the accounts audit their
 * e-mail (it has no foreign key), so /audit still says who it was.
 */
export async function removeUser(
  auth: Auth,
  db: Db,
  actor: AccountActor,
  input: { email: string },
): Promise<{ id: string; email: string }> {
  const changed = await changeAccounts(auth, db, async (transaction, authority) => {
    const subject = await findUser(transaction, input.email);
    refuseSelf(actor, subject, "remove");
    await keepAnAdmin(transaction, subject, "remove them");
    const adapter = (await authority.$context).internalAdapter;
    await adapter.deleteUserSessions(subject.id);
    await adapter.deleteUser(subject.id);
    await recordAccountEvent(transaction, actor, subject, "user_removed", `was ${roleOf(subject)}`);
    return { id: subject.id, email: subject.email };
  });
  // Committed: this instance forgets their tokens and sessions now, the others as they hear it (identity-cache.ts).
  forgetAuthChange({ user: changed.id });
  return changed;
}

async function storePassword(authority: Auth, userId: string, password: string): Promise<void> {
  const context = await authority.$context;
  const hash = await context.password.hash(password);
  if (await context.internalAdapter.findCredentialAccount(userId)) {
    await context.internalAdapter.updatePassword(userId, hash);
  } else {
    await context.internalAdapter.linkAccount({
      userId,
      providerId: "credential",
      accountId: userId,
      password: hash,
    });
  }
}

/** An admin sets someone's password; their sessions end (their tokens keep working). */
export async function resetPassword(
  auth: Auth,
  db: Db,
  actor: AccountActor,
  input: { email: string; password: string },
): Promise<UserSummary> {
  checkPassword(input.password, "The new password");
  const changed = await changeAccounts(auth, db, async (transaction, authority) => {
    const subject = await findUser(transaction, input.email);
    await storePassword(authority, subject.id, input.password);
    await (await authority.$context).internalAdapter.deleteUserSessions(subject.id);
    await recordAccountEvent(transaction, actor, subject, "password_reset");
    return summarize(subject);
  });
  // Committed: this instance forgets their sessions now, the others as they hear it (identity-cache.ts).
  forgetAuthChange({ user: changed.id });
  return changed;
}

/**
 * Changes the signed-in person's own password, given the current one; every
 * other session of theirs ends (this one, `keepSessionId`, stays).
 */
export async function changeOwnPassword(
  auth: Auth,
  db: Db,
  self: { userId: string; email: string; sessionId: string | null },
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  checkPassword(input.newPassword, "The new password");
  // Refused before anything is read or counted: it compares what was sent, and guesses nothing.
  if (input.newPassword === input.currentPassword) {
    throw new AccountError(
      "invalid_request",
      "The new password is the same as the current one: choose a different password.",
    );
  }
  // Guessing the current password here counts against the same per-account budget as signing in:
  // otherwise any of the person's tokens, even one limited to viewing, could guess it unhindered.
  const limiter = getAccountAttemptLimiter();
  const attempts = accountAttemptsKey(self.email);
  const taken = limiter.take(attempts);
  if (!taken.allowed) {
    throw RequestRefusal.of(
      "too_many_attempts",
      `Too many wrong passwords for this account: try again in ${taken.retryAfterSeconds} s.`,
      { "retry-after": String(taken.retryAfterSeconds) },
    );
  }
  await changeAccounts(auth, db, async (transaction, authority) => {
    const context = await authority.$context;
    const [credential] = await transaction
      .select({ password: account.password })
      .from(account)
      .where(and(eq(account.userId, self.userId), eq(account.providerId, "credential")));
    const isCurrent =
      credential?.password != null &&
      (await context.password.verify({ hash: credential.password, password: input.currentPassword }));
    if (!isCurrent) throw new AccountError("forbidden", "The current password is not right.");
    await storePassword(authority, self.userId, input.newPassword);
    await transaction
      .delete(session)
      .where(
        self.sessionId === null
          ? eq(session.userId, self.userId)
          : and(eq(session.userId, self.userId), ne(session.id, self.sessionId)),
      );
    await recordAccountEvent(
      transaction,
      { id: self.userId, email: self.email },
      { id: self.userId, email: self.email },
      "password_changed",
    );
  });
  limiter.giveBack(attempts);
  // Committed: this instance forgets their other sessions now, the others as they hear it.
  forgetAuthChange({ user: self.userId });
}

/** A page of the accounts audit, newest first; `before` is the last id of the previous page. */
export async function listAccountEvents(
  db: Db,
  page: { limit: number; before?: number },
): Promise<AccountEvent[]> {
  const rows = await db
    .select()
    .from(accountEvents)
    .where(page.before === undefined ? undefined : lt(accountEvents.id, page.before))
    .orderBy(desc(accountEvents.id))
    .limit(page.limit);
  return rows.map((row) => ({
    id: row.id,
    at: row.at.toISOString(),
    kind: row.kind as AccountEventKind,
    actorEmail: row.actorEmail,
    subjectEmail: row.subjectEmail,
    detail: row.detail,
  }));
}

/** Applies one change of {@link changeUserSchema}'s kinds (the actions, the route and the CLI share it). */
/** A person's role is one of {@link PERSON_ROLES}: the agent role is a token's, on every path that sets one. */
function checkPersonRole(role: Role): void {
  if ((PERSON_ROLES as readonly string[]).includes(role)) return;
  throw new AccountError(
    "invalid_request",
    `A person's role is one of ${PERSON_ROLES.join(", ")}; ${role} is an API token's (token create --role ${role}).`,
  );
}

export async function changeUser(
  auth: Auth,
  db: Db,
  actor: AccountActor,
  change: { email: string } & ({ role: Role } | { isActive: boolean } | { password: string }),
): Promise<UserSummary> {
  if ("role" in change) return setUserRole(auth, db, actor, change);
  if ("isActive" in change) return setUserActive(auth, db, actor, change);
  return resetPassword(auth, db, actor, change);
}
