import "server-only";
import { randomBytes } from "node:crypto";
import { apiKey } from "@better-auth/api-key";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError } from "better-auth/api";
import { nextCookies } from "better-auth/next-js";
import { admin } from "better-auth/plugins";
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { account, apikey, appSettings, session, user, verification } from "@/db/schema";
import { personNameSchema } from "@/lib/runtime";
import { logAuthRouteError, logFromAuth } from "./auth-log";
import { CLIENT_ADDRESS_HEADER } from "./client-address";

/** API tokens start with this, so a leaked one is recognisable (and scannable) as ours. */
export const TOKEN_PREFIX = "tp_";

/**
 * Sign-in, sessions and API tokens (better-auth) on the app's own database.
 * Users are created by an admin or at first start, never by signing up.
 * Sign-in is rate limited per address (10 attempts a minute, in each
 * instance's memory; the address is the socket's unless PLAYGROUND_TRUSTED_PROXY
 * says a proxy sits in front) and per account (app/api/auth/[...all]/route.ts). Passwords are hashed with scrypt; tokens are stored as
 * SHA-256 hashes.
 */
export function createAuth(db: Db, secret: string) {
  return betterAuth({
    secret,
    // Without BETTER_AUTH_URL the origin comes from each request, so any host and port works.
    baseURL: process.env.BETTER_AUTH_URL,
    // Same-origin requests only: the host the browser addressed (127.0.0.1 or localhost, any port).
    trustedOrigins: (request) => [process.env.BETTER_AUTH_URL, requestOrigin(request)],
    database: drizzleAdapter(db, {
      provider: "pg",
      schema: { user, session, account, verification, apikey },
    }),
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 8 },
    // Every path that writes a user (an admin adding one, the first administrator, the CLI,
    // the account's own /api/auth/update-user, a sign-up were it on) goes through these.
    databaseHooks: {
      user: {
        create: { before: async (data) => ({ data: { ...data, name: checkPersonName(data.name) } }) },
        update: {
          before: async (data) =>
            data.name === undefined ? undefined : { data: { ...data, name: checkPersonName(data.name) } },
        },
      },
    },
    rateLimit: {
      enabled: true,
      storage: "memory",
      customRules: { "/sign-in/email": { window: 60, max: 10 } },
    },
    advanced: {
      // better-auth turns its origin and cross-site checks off under NODE_ENV=test; the tests check
      // what production does.
      disableOriginCheck: false,
      // The per-address limit keys on the address the /api/auth route establishes (the socket's, or
      // the trusted proxy's view with PLAYGROUND_TRUSTED_PROXY), never on a header the client sets.
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
      // Secure cookies need https; a deployment behind TLS says so with an https BETTER_AUTH_URL.
      useSecureCookies: process.env.BETTER_AUTH_URL?.startsWith("https://") ?? false,
    },
    disabledPaths: DISABLED_AUTH_PATHS,
    telemetry: { enabled: false },
    // Warnings (a missing BETTER_AUTH_URL) would print at every CLI command; docs/configuration.md says
    // when to set it. So better-auth's warnings are not logged, whatever LOG_LEVEL says.
    logger: { level: "error", log: logFromAuth },
    onAPIError: { onError: logAuthRouteError },
    plugins: [
      admin({ defaultRole: "viewer", adminRoles: ["admin"] }),
      // Our own identity check verifies tokens; the key's own request limit is off (we count nothing per key).
      apiKey({
        defaultPrefix: TOKEN_PREFIX,
        enableMetadata: true,
        maximumNameLength: 64,
        rateLimit: { enabled: false },
      }),
      nextCookies(), // last: writes the session cookie from server actions
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;

/** A person's name as {@link personNameSchema} normalises it, or a 400 naming the field. */
function checkPersonName(name: unknown): string {
  const parsed = personNameSchema.safeParse(name);
  if (parsed.success) return parsed.data;
  throw new APIError("BAD_REQUEST", {
    message: `name: ${parsed.error.issues.map((issue) => issue.message).join("; ")}`,
  });
}

/**
 * better-auth endpoints nobody may call over HTTP. Impersonation: an admin
 * acting as someone else would put that person's name on decisions they never
 * took. The API-key plugin's own endpoints: they skip the app's rules (names
 * unique per owner, a role no higher than the creator's, who may revoke what),
 * so tokens are made, listed and revoked only through lib/server/auth/accounts.ts
 * (the pages' actions, /api/tokens, the CLI). The server calls them directly.
 * Account changes (a role, deactivation, removal, passwords): the admin
 * plugin's endpoints and better-auth's own password change would skip the
 * last-admin rule and the accounts audit, so they go through
 * lib/server/auth/account-changes.ts only (the pages' actions, /api/users, the CLI).
 */
export const DISABLED_AUTH_PATHS = [
  "/admin/impersonate-user",
  "/admin/stop-impersonating",
  "/admin/create-user",
  "/admin/update-user",
  "/admin/set-role",
  "/admin/set-user-password",
  "/admin/ban-user",
  "/admin/unban-user",
  "/admin/remove-user",
  "/change-password",
  "/set-password",
  "/api-key/create",
  "/api-key/get",
  "/api-key/list",
  "/api-key/update",
  "/api-key/delete",
];

/**
 * Whether an /api/auth request addresses a disabled endpoint, however its
 * path is spelled (case, doubled or trailing slashes, encoded slashes): the
 * route refuses these before better-auth's router, whose own `disabledPaths`
 * compares one spelling only.
 */
export function isDisabledAuthPath(url: string): boolean {
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url).pathname);
  } catch {
    return true; // a path that does not decode addresses nothing we serve
  }
  const segments = pathname
    .toLowerCase()
    .split(/[/\\]+/)
    .filter(Boolean);
  const below = segments.slice(segments.indexOf("auth") + 1).join("/");
  return below.startsWith("api-key") || DISABLED_AUTH_PATHS.some((path) => `/${below}` === path);
}

/** The origin a request was addressed to, as the browser saw it (behind a proxy, its forwarded host). */
function requestOrigin(request: Request | undefined): string | null {
  const host = request?.headers.get("x-forwarded-host") ?? request?.headers.get("host");
  if (!host) return null;
  const protocol =
    request?.headers.get("x-forwarded-proto") ?? new URL(request?.url ?? "http://x").protocol.slice(0, -1);
  return `${protocol}://${host}`;
}

/**
 * The secret that signs session cookies: BETTER_AUTH_SECRET when set;
 * otherwise one generated at first start and kept in the database, so every
 * instance on it signs alike and a restart keeps everyone signed in.
 */
export async function readSecret(db: Db): Promise<string> {
  const configured = process.env.BETTER_AUTH_SECRET;
  if (configured) return configured;
  await db
    .insert(appSettings)
    .values({ key: "auth_secret", value: randomBytes(32).toString("base64url") })
    .onConflictDoNothing();
  const [row] = await db.select().from(appSettings).where(eq(appSettings.key, "auth_secret"));
  if (!row) throw new Error("the auth secret could not be stored");
  return row.value;
}
