import { processPart } from "@/lib/server/process-parts";

/** Sign-in attempts per account (email), from any address: at most this many… */
export const ACCOUNT_ATTEMPTS_MAX = 10;
/** …in this many seconds. A successful sign-in gives its attempt back. */
export const ACCOUNT_ATTEMPTS_WINDOW_SECONDS = 600;

/** A fixed-window count of attempts per key, in this process's memory (as better-auth's own limit). */
export interface AttemptLimiter {
  /** Counts an attempt; false (and the seconds until the window ends) when the key has used its quota. */
  take(key: string, now?: number): { allowed: true } | { allowed: false; retryAfterSeconds: number };
  /** Gives back an attempt that succeeded: a person who signs in is not counted against. */
  giveBack(key: string): void;
}

export function createAttemptLimiter(max: number, windowSeconds: number): AttemptLimiter {
  const windows = new Map<string, { count: number; endsAt: number }>();
  return {
    take(key, now = Date.now()) {
      for (const [stale, window] of windows) if (window.endsAt <= now) windows.delete(stale);
      const window = windows.get(key) ?? { count: 0, endsAt: now + windowSeconds * 1000 };
      if (window.count >= max) {
        return { allowed: false, retryAfterSeconds: Math.ceil((window.endsAt - now) / 1000) };
      }
      windows.set(key, { ...window, count: window.count + 1 });
      return { allowed: true };
    },
    giveBack(key) {
      const window = windows.get(key);
      if (window && window.count > 0) windows.set(key, { ...window, count: window.count - 1 });
    },
  };
}

/** The key of an account's attempts: its email as a sign-in names it. */
export function accountAttemptsKey(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The process's per-account limit on password guesses (one per instance, as the per-address one):
 * signing in, and changing one's password, which needs the current one.
 */
export function getAccountAttemptLimiter(): AttemptLimiter {
  return processPart("sign-in-limits", () =>
    createAttemptLimiter(ACCOUNT_ATTEMPTS_MAX, ACCOUNT_ATTEMPTS_WINDOW_SECONDS),
  );
}
