/** A base no request ever has: a target that resolves to another origin against it leaves the app. */
const BASE = "http://sign-in.invalid";

/**
 * Where sign-in sends a person afterwards (`/sign-in?next=…`): a path of this app, or `/`. Never
 * another site, however the path is written: browsers read `/\evil.com` and `/<tab>/evil.com` as
 * `//evil.com`, so the target is resolved as a browser resolves it, not judged by its first characters.
 */
export function readSignInTarget(next: unknown): string {
  if (typeof next !== "string" || !next.startsWith("/")) return "/";
  try {
    return new URL(next, BASE).origin === BASE ? next : "/";
  } catch {
    return "/"; // nothing a browser could follow
  }
}
