import "server-only";
import { createHash } from "node:crypto";
import { and, inArray, isNull, lt, or } from "drizzle-orm";
import type { DatabaseHandle } from "@/db/client";
import { apikey } from "@/db/schema";
import { processPart } from "../process-parts";
import type { Identity } from "./request-identity";

/**
 * The channel every change to a token, a person or a session is announced on, by triggers
 * (db/migrations/0012_token_cache_invalidation.sql, 0020_session_cache_invalidation.sql).
 */
export const AUTH_CHANGES_CHANNEL = "tp_auth_changes";

/** How long a verified token or session is trusted without being read again (docs/security.md#api-tokens). */
export const IDENTITY_CACHE_TTL_MS = 30_000;
/** How often the tokens' last use is written, coalesced: one UPDATE for every token used since. */
export const LAST_USED_FLUSH_MS = 5_000;
/** At most this many tokens and sessions are remembered; the oldest is forgotten first. */
const MAX_ENTRIES = 10_000;

interface Entry {
  identity: Identity;
  expiresAt: number;
}

/**
 * Verified API tokens and signed-in sessions, kept briefly in this process so
 * a request costs no database round trip and no write. Whatever changes a
 * token, a session or their person (revoked, limited, signed out, deactivated,
 * removed, given another role) is a NOTIFY every instance hears at commit (a
 * trigger, whoever writes), and it forgets what it held of them; the instance that made the change forgets at
 * once, before it answers. Until this process listens, and again whenever its
 * listening connection reconnects (what was said meanwhile is lost), it
 * trusts nothing it held. A token's last use is remembered and written every
 * {@link LAST_USED_FLUSH_MS}, one statement for all tokens used since.
 */
export interface IdentityCache {
  /** The identity of `key`, from memory or from `verify` (which reads and records a use). */
  read(key: string, verify: () => Promise<VerifiedIdentity | null>): Promise<Identity | null>;
  /** Forgets a token, a session, or every token and session of a person. */
  forget(change: AuthChange): void;
  /** Writes the pending last uses now. */
  flush(): Promise<void>;
  /** Stops listening and writes the pending last uses. */
  close(): Promise<void>;
  /** For tests and the bench: how many reads were answered from memory. */
  readonly hits: number;
}

/** An identity as verified from the database, and when its token or session itself expires (ms), if ever. */
export interface VerifiedIdentity {
  identity: Identity;
  expiresAt: number | null;
}

export type AuthChange = { token: string } | { session: string } | { user: string };

/**
 * Every identity cache of this process, and which auth each belongs to: one process part
 * (lib/server/process-parts.ts), since Next may load this module more than once, and a change made
 * here must be forgotten by every cache here before its request answers.
 */
function processCaches(): { all: Set<IdentityCache>; byAuth: WeakMap<object, IdentityCache> } {
  return processPart("identity-caches", () => ({ all: new Set<IdentityCache>(), byAuth: new WeakMap() }));
}

/** Gives `auth` a token cache: its tokens are verified from memory, as {@link IdentityCache} says. */
export function attachIdentityCache(auth: object, cache: IdentityCache): void {
  processCaches().byAuth.set(auth, cache);
}

export function identityCacheOf(auth: object): IdentityCache | undefined {
  return processCaches().byAuth.get(auth);
}

/** Forgets a change in every token cache of this process (the one that made it calls this after commit). */
export function forgetAuthChange(change: AuthChange): void {
  for (const cache of processCaches().all) cache.forget(change);
}

function parseChange(payload: string): AuthChange | null {
  const separator = payload.indexOf(":");
  const kind = payload.slice(0, separator);
  const id = payload.slice(separator + 1);
  if (kind === "token") return { token: id };
  if (kind === "session") return { session: id };
  if (kind === "user") return { user: id };
  return null;
}

function matchesChange(identity: Identity, change: AuthChange): boolean {
  if ("token" in change) return identity.token?.id === change.token;
  if ("session" in change) return identity.sessionId === change.session;
  return identity.userId === change.user;
}

export function createIdentityCache(
  handle: DatabaseHandle,
  options: { ttlMs?: number; flushMs?: number; now?: () => number } = {},
): IdentityCache {
  const ttlMs = options.ttlMs ?? IDENTITY_CACHE_TTL_MS;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const lastUsed = new Map<string, Date>();
  // Bumped by every change heard: a verification that began before it does not keep its answer.
  let generation = 0;
  let isListening = false;
  let hits = 0;
  let stopListening: (() => Promise<void>) | null = null;

  function forget(change: AuthChange): void {
    generation += 1;
    for (const [hash, entry] of entries) {
      if (matchesChange(entry.identity, change)) entries.delete(hash);
    }
  }

  const listening = handle
    .listen(
      AUTH_CHANGES_CHANNEL,
      (payload) => {
        const change = parseChange(payload);
        if (change) forget(change);
        else {
          generation += 1;
          entries.clear();
        }
      },
      () => {
        // (Re)connected: anything said while the connection was down was missed.
        generation += 1;
        entries.clear();
        isListening = true;
      },
    )
    .then((stop) => {
      stopListening = stop;
      isListening = true;
    })
    .catch(() => {
      isListening = false;
    });

  async function flush(): Promise<void> {
    if (lastUsed.size === 0) return;
    const pending = [...lastUsed];
    lastUsed.clear();
    // One statement for every token used since the last flush, stamped with the latest use among
    // them: a token's last use is exact to within the flush interval, and never moves backwards.
    const latest = new Date(Math.max(...pending.map(([, at]) => at.getTime())));
    try {
      await handle.db
        .update(apikey)
        .set({ lastRequest: latest })
        .where(
          and(
            inArray(
              apikey.id,
              pending.map(([id]) => id),
            ),
            or(isNull(apikey.lastRequest), lt(apikey.lastRequest, latest)),
          ),
        );
    } catch {
      // Kept for the next flush, unless a newer use is already waiting.
      for (const [id, at] of pending) if (!lastUsed.has(id)) lastUsed.set(id, at);
    }
  }

  const timer = setInterval(() => void flush(), options.flushMs ?? LAST_USED_FLUSH_MS);
  timer.unref?.();

  const cache: IdentityCache = {
    async read(key, verify) {
      const hash = createHash("sha256").update(key).digest("base64url");
      const entry = entries.get(hash);
      if (entry && isListening && entry.expiresAt > now()) {
        hits += 1;
        if (entry.identity.token) lastUsed.set(entry.identity.token.id, new Date(now()));
        return entry.identity;
      }
      if (entry) entries.delete(hash);
      const startedAt = generation;
      const verified = await verify();
      if (verified && isListening && generation === startedAt) {
        if (entries.size >= MAX_ENTRIES) {
          const oldest = entries.keys().next().value;
          if (oldest !== undefined) entries.delete(oldest);
        }
        entries.set(hash, {
          identity: verified.identity,
          expiresAt: Math.min(now() + ttlMs, verified.expiresAt ?? Number.POSITIVE_INFINITY),
        });
      }
      return verified?.identity ?? null;
    },
    forget,
    flush,
    async close() {
      clearInterval(timer);
      processCaches().all.delete(cache);
      await listening;
      await stopListening?.().catch(() => {});
      await flush();
    },
    get hits() {
      return hits;
    },
  };
  processCaches().all.add(cache);
  return cache;
}
