import "server-only";
import { getLogger } from "@/lib/server/ops/logger";

type AuthLogLevel = "debug" | "info" | "warn" | "error";

/**
 * better-auth's log lines, written as the server's own (lib/server/ops/logger.ts: one JSON line,
 * credentials redacted, a failed query's parameters cut) instead of better-auth's coloured,
 * many-line text. What better-auth writes through its logger comes here, and its router's account
 * of an error that answered a request ({@link logAuthRouteError}); better-call still prints an
 * unexpected error on /api/auth/* to the console itself.
 *
 * A refusal of the client's own making (an error better-auth answers with a 4xx: an unknown,
 * expired or disabled API token) is not the server's error: better-auth logs one at ERROR for every
 * such token, twice per request when the identity is looked up again (lib/http/require-identity.ts),
 * so a client with a wrong token filled the log with them. An API route's own "request refused"
 * line says the request was refused (401 `unauthenticated`); the refusal is kept at debug.
 *
 * A request refused for the site it came from (better-auth's origin checks on /api/auth/*, each a
 * 403 no route of ours logs) is not the server's error either, but someone should see it: a
 * cross-site attempt, or people reaching the app at an address it was not told. It is a warning,
 * with what to set when the address is the app's own.
 */
export function logFromAuth(level: AuthLogLevel, message: unknown, ...args: unknown[]): void {
  // better-auth's types say the message is text; one of its routes hands over the error itself.
  const err = [message, ...args].find((arg): arg is Error => arg instanceof Error);
  const detail = args.find((arg) => !(arg instanceof Error));
  const text = typeof message === "string" ? message.replace(/:\s*$/, "") : (err?.message ?? String(message));
  const fields = {
    component: "better-auth",
    ...(err ? { err } : {}),
    ...(detail === undefined ? {} : { detail }),
  };
  if (isClientRefusal(err)) getLogger().debug(fields, text);
  else if (REFUSED_ADDRESS.test(text)) getLogger().warn({ ...fields, hint: REFUSED_ADDRESS_HINT }, text);
  else if (CROSS_SITE_FORM.test(text)) getLogger().warn({ ...fields, hint: CROSS_SITE_FORM_HINT }, text);
  else getLogger()[level](fields, text);
}

/**
 * better-auth's `onAPIError.onError`: what its router says of an error that answered a request on
 * /api/auth/*, as the server's own line. Its own account printed the message of each refusal its
 * middleware made (a refused origin or callback URL) to the console beside the server's log. A
 * refusal (4xx) is the client's, kept at debug; anything else is an error. better-call still
 * prints an error that is not a refusal itself (`# SERVER_ERROR`) as it answers 500.
 */
export function logAuthRouteError(error: unknown): void {
  if (error instanceof Error) logFromAuth("error", error.message, error);
  else logFromAuth("error", "a request to /api/auth failed", { error: String(error) });
}

/**
 * What better-auth's origin checks log as they answer 403 (better-auth/dist/api/middlewares/origin-check):
 * an address not among the app's trusted origins, which a setting can change...
 */
const REFUSED_ADDRESS = /^Invalid (origin|callbackURL|redirectURL|errorCallbackURL|newUserCallbackURL): /;

const REFUSED_ADDRESS_HINT =
  "refused for the site it came from; if that is the app's own address, set BETTER_AUTH_URL to it (docs/configuration.md)";

/**
 * ...and a sign-in form posted from another site, as the browser itself said (`Sec-Fetch-Site:
 * cross-site` on a navigation, with no session cookie), which no setting of ours allows.
 */
const CROSS_SITE_FORM = /^Blocked cross-site navigation login attempt/;

const CROSS_SITE_FORM_HINT =
  "a page on another site posted a sign-in form here, as the browser reported (Sec-Fetch-Site: cross-site); no setting allows it: sign in from the app's own pages";

/** better-call's APIError (what better-auth throws to answer a request) with a 4xx status. */
function isClientRefusal(error: Error | undefined): boolean {
  if (error?.name !== "APIError") return false;
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === "number" && status >= 400 && status < 500;
}
