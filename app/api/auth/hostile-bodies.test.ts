import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PEER_ADDRESS_HEADER } from "@/lib/server/auth/client-address";
import { type CapturedLog, captureLog } from "@/lib/server/testing/captured-log";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

// better-auth's endpoints refuse a body every other route refuses, before it reaches the database.
let viewer: TestAccount;
let route: typeof import("./[...all]/route");
let cookie: string;
let log: CapturedLog;

const setup = setUpRouteTests(["viewer"]);

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  route.POST(
    new Request(`http://test/api/auth${path}`, {
      method: "POST",
      headers: {
        host: "test",
        origin: "http://test",
        "content-type": "application/json",
        [PEER_ADDRESS_HEADER]: "192.0.2.200",
        ...headers,
      },
      body,
    }),
  );

beforeAll(async () => {
  ({ viewer } = setup.accounts);
  route = await import("./[...all]/route");
  const signedIn = await post(
    "/sign-in/email",
    JSON.stringify({ email: viewer.email, password: "test-password-1" }),
  );
  expect(signedIn.status).toBe(200);
  cookie = signedIn.headers
    .getSetCookie()
    .map((set) => set.split(";")[0])
    .join("; ");
});
beforeEach(() => {
  log = captureLog("warn");
});
afterEach(() => {
  log.restore();
});

describe("a hostile body to /api/auth", () => {
  it("is a 400 naming the field when a string holds NUL or half a surrogate pair, and the server logs no error", async () => {
    const cases: Array<[string, string, string]> = [
      ["/update-user", '{"image":"a\\u0000b"}', "image"],
      ["/update-user", '{"name":"x\\ud800"}', "name"],
      ["/revoke-session", '{"token":"a\\u0000"}', "token"],
    ];
    for (const [path, body, field] of cases) {
      const answer = await post(path, body, { cookie });
      expect(answer.status, path).toBe(400);
      expect((await answer.json()).error).toMatchObject({
        code: "invalid_request",
        issues: [expect.objectContaining({ path: field })],
      });
    }
    expect(log.lines).toEqual([]);
  });

  it("is refused whole when it is too large or nests too deep, as every route refuses it", async () => {
    const large = await post("/update-user", JSON.stringify({ name: "x".repeat(3 * 1024 * 1024) }), {
      cookie,
    });
    expect(large.status).toBe(413);
    const deep = await post("/update-user", `${"[".repeat(200)}${"]".repeat(200)}`, { cookie });
    expect(deep.status).toBe(400);
  });

  it("leaves a fair request to better-auth", async () => {
    const renamed = await post("/update-user", JSON.stringify({ name: "Vera Viewer" }), { cookie });
    expect(renamed.status).toBe(200);
  });
});
