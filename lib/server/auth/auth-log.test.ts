import { DrizzleQueryError } from "drizzle-orm/errors";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { lookUpIdentity } from "@/lib/http/require-identity";
import { getLogger } from "@/lib/server/ops/logger";
import { getAuth } from "@/lib/server/server-context";
import { type CapturedLog, captureLog, type LogLine } from "@/lib/server/testing/captured-log";
import { installProcessTestDatabase } from "@/lib/server/testing/process-test-database";
import { createTestAccounts, type TestAccount } from "@/lib/server/testing/test-accounts";
import { logAuthRouteError, logFromAuth } from "./auth-log";

let uninstall = async () => {};
let approver: TestAccount;
let captured: CapturedLog | undefined;
let lines: LogLine[] = [];

beforeAll(async () => {
  ({ uninstall } = await installProcessTestDatabase());
  ({ approver } = await createTestAccounts(["approver"]));
});
afterAll(async () => {
  await uninstall();
});

/** The server's log lines from now on, at `level`. */
function logAt(level: string): void {
  captured = captureLog(level);
  lines = captured.lines;
}

afterEach(() => {
  captured?.restore();
  captured = undefined;
  vi.restoreAllMocks();
});

describe("better-auth's log", () => {
  it("does not call a client's wrong API token a server error, nor print around the server's log", async () => {
    logAt("debug");
    const printed = vi.spyOn(console, "error");
    const wrongToken = "tp_not-a-token-anyone-made";

    const identity = await lookUpIdentity(new Headers({ authorization: `Bearer ${wrongToken}` }));

    expect(identity).toBeNull();
    expect(printed).not.toHaveBeenCalled();
    expect(lines.filter((line) => line.level === "error" || line.level === "warn")).toEqual([]);
    const refusals = lines.filter((line) => line.component === "better-auth");
    expect(refusals.length).toBeGreaterThan(0);
    for (const line of refusals) {
      expect(line).toMatchObject({ level: "debug", msg: "Failed to validate API key" });
      expect(JSON.stringify(line)).not.toContain(wrongToken);
    }
  });

  it("writes nothing at the default level for a wrong token, and still lets a right one in", async () => {
    logAt("info");
    expect(await lookUpIdentity(new Headers({ authorization: "Bearer tp_wrong" }))).toBeNull();
    expect(await lookUpIdentity(new Headers(approver.headers))).toMatchObject({ role: "approver" });
    // A line at that level does reach the capture: the silence above is better-auth's, not the test's.
    getLogger().info("after the tokens");
    expect(lines).toEqual([expect.objectContaining({ level: "info", msg: "after the tokens" })]);
  });

  it("keeps what is the server's own trouble an error, as one JSON line with the error", () => {
    logAt("info");
    logFromAuth("error", "Failed to read session from database", new Error("connection terminated"));
    const refused = Object.assign(new Error("Internal"), { name: "APIError", statusCode: 500 });
    logFromAuth("error", "Failed to create user", refused);
    // One of better-auth's routes hands over the error as the message itself.
    logFromAuth("error", new Error("list sessions failed") as unknown as string);

    expect(lines).toEqual([
      expect.objectContaining({
        level: "error",
        component: "better-auth",
        msg: "Failed to read session from database",
        err: expect.objectContaining({ message: "connection terminated" }),
      }),
      expect.objectContaining({ level: "error", msg: "Failed to create user" }),
      expect.objectContaining({
        level: "error",
        msg: "list sessions failed",
        err: expect.objectContaining({ message: "list sessions failed" }),
      }),
    ]);
  });

  it("says a request refused for the site it came from as a warning, not the server's error", () => {
    logAt("info");
    // better-auth's origin checks on /api/auth/*: each answers 403, and no route of ours logs it.
    logFromAuth("error", "Invalid origin: http://evil.example");
    logFromAuth("error", "Invalid callbackURL: http://evil.example/after");
    logFromAuth("error", "Blocked cross-site navigation login attempt (CSRF protection)", {
      path: "/sign-in",
    });
    // Not a refusal: a message that only mentions an origin stays as better-auth says it.
    logFromAuth("error", "Failed to parse origin header");

    const hint = expect.stringContaining("set BETTER_AUTH_URL");
    expect(lines).toEqual([
      expect.objectContaining({ level: "warn", msg: "Invalid origin: http://evil.example", hint }),
      expect.objectContaining({ level: "warn", msg: "Invalid callbackURL: http://evil.example/after", hint }),
      // The browser said another site's page posted it: no setting of ours changes that.
      expect.objectContaining({
        level: "warn",
        detail: { path: "/sign-in" },
        hint: expect.stringMatching(/another site.*no setting allows it/),
      }),
      expect.objectContaining({ level: "error", msg: "Failed to parse origin header" }),
    ]);
    expect(lines[3]).not.toHaveProperty("hint");
  });

  it("takes the account of /api/auth's router: a refusal at debug, a failure as an error, nothing printed", async () => {
    logAt("debug");
    const printed = [vi.spyOn(console, "error"), vi.spyOn(console, "warn"), vi.spyOn(console, "log")];
    // Its origin checks run as the router's middleware, and the router printed each refusal's
    // message to the console itself (app/api/auth/refused-sites.test.ts sends such requests).
    expect((await getAuth()).options.onAPIError?.onError).toBe(logAuthRouteError);

    const refusal = Object.assign(new Error("Invalid callbackURL"), { name: "APIError", statusCode: 403 });
    logAuthRouteError(refusal);
    logAuthRouteError(Object.assign(new Error("Internal"), { name: "APIError", statusCode: 500 }));
    logAuthRouteError(new Error('relation "session" does not exist'));
    logAuthRouteError("a thrown string");

    for (const spy of printed) expect(spy).not.toHaveBeenCalled();
    expect(lines).toEqual([
      expect.objectContaining({ level: "debug", component: "better-auth", msg: "Invalid callbackURL" }),
      expect.objectContaining({
        level: "error",
        msg: "Internal",
        err: expect.objectContaining({ message: "Internal" }),
      }),
      expect.objectContaining({ level: "error", msg: 'relation "session" does not exist' }),
      expect.objectContaining({ level: "error", detail: { error: "a thrown string" } }),
    ]);
  });

  it("logs no failed query's parameters: not its fields, its message, its cause, nor a detail", () => {
    logAt("info");
    // What drizzle throws: the parameters in the message and in an enumerable field of their own.
    const failed = () =>
      new DrizzleQueryError(
        'select "id" from "session" where "token" = $1',
        ["session-token-secret"],
        new Error("ECONNRESET"),
      );
    logFromAuth("error", "INTERNAL_SERVER_ERROR", failed());
    logFromAuth("error", "Failed to validate API key:", failed());
    logFromAuth("error", "Error parsing JSON", { error: failed(), note: "params: session-token-secret" });
    logFromAuth("error", `Failed query: select 1\nparams: session-token-secret`);

    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatchObject({
      level: "error",
      msg: "INTERNAL_SERVER_ERROR",
      err: { type: "DrizzleQueryError", params: "[not logged]" },
    });
    expect(lines[1]).toMatchObject({ level: "error", msg: "Failed to validate API key" });
    expect(JSON.stringify(lines)).not.toContain("session-token-secret");
  });
});
