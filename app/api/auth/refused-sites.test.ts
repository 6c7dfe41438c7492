import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { PEER_ADDRESS_HEADER } from "@/lib/server/auth/client-address";
import { type CapturedLog, captureLog } from "@/lib/server/testing/captured-log";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

// better-auth's origin checks, on as in production (lib/server/auth/auth.ts): a sign-in another site
// sends is refused, and the server says so in one warning, not as its own error.
let viewer: TestAccount;
let route: typeof import("./[...all]/route");
let log: CapturedLog;

const setup = setUpRouteTests(["viewer"]);

beforeAll(async () => {
  ({ viewer } = setup.accounts);
  route = await import("./[...all]/route");
});
beforeEach(() => {
  log = captureLog("info");
});
afterEach(() => {
  log.restore();
  vi.restoreAllMocks();
});

let peers = 0;
/** A sign-in as the server would pass it on, each from an address of its own (the limit is per address). */
function signIn(headers: Record<string, string>, body: Record<string, unknown> = {}) {
  peers += 1;
  return route.POST(
    new Request("http://test/api/auth/sign-in/email", {
      method: "POST",
      headers: {
        host: "test",
        "content-type": "application/json",
        [PEER_ADDRESS_HEADER]: `192.0.2.${peers}`,
        ...headers,
      },
      body: JSON.stringify({ email: viewer.email, password: "test-password-1", ...body }),
    }),
  );
}

describe("a sign-in from another site", () => {
  it("is refused when its origin is not the app's, in one warning that says what to set", async () => {
    const printed = [vi.spyOn(console, "error"), vi.spyOn(console, "log")];
    const answer = await signIn({ origin: "http://evil.example", cookie: "better-auth.session_token=stale" });
    expect(answer.status).toBe(403);
    expect(log.lines).toEqual([
      expect.objectContaining({
        level: "warn",
        msg: "Invalid origin: http://evil.example",
        hint: expect.stringContaining("set BETTER_AUTH_URL"),
      }),
    ]);
    for (const print of printed) expect(print).not.toHaveBeenCalled();
  });

  it("is refused when it would send the browser to another site afterwards", async () => {
    const answer = await signIn({ origin: "http://test" }, { callbackURL: "http://evil.example/after" });
    expect(answer.status).toBe(403);
    expect(log.lines).toEqual([
      expect.objectContaining({ level: "warn", msg: "Invalid callbackURL: http://evil.example/after" }),
    ]);
  });

  it("is refused when the browser says another site's page posted it, with a hint that no setting allows it", async () => {
    const answer = await signIn({
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "navigate",
      "sec-fetch-dest": "document",
    });
    expect(answer.status).toBe(403);
    expect(log.lines).toEqual([
      expect.objectContaining({
        level: "warn",
        hint: expect.stringMatching(/another site.*no setting allows it/),
      }),
    ]);
  });

  it("is not what the app's own pages send: those sign in", async () => {
    const answer = await signIn({
      origin: "http://test",
      "sec-fetch-site": "same-origin",
      "sec-fetch-mode": "cors",
    });
    expect(answer.status).toBe(200);
    expect(log.lines.filter((line) => line.level === "warn" || line.level === "error")).toEqual([]);
  });
});
