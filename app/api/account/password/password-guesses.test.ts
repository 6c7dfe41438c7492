import { beforeAll, describe, expect, it } from "vitest";
import { PEER_ADDRESS_HEADER } from "@/lib/server/auth/client-address";
import { ACCOUNT_ATTEMPTS_MAX } from "@/lib/server/auth/sign-in-limits";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

// Changing one's password needs the current one: a token (even one limited to viewing) must not
// turn that into a way to guess it. The guesses count against the account's sign-in budget.
let viewer: TestAccount;
let route: typeof import("./route");
let auth: typeof import("../../auth/[...all]/route");

const setup = setUpRouteTests(["viewer"]);

beforeAll(async () => {
  ({ viewer } = setup.accounts);
  route = await import("./route");
  auth = await import("../../auth/[...all]/route");
});

const change = (currentPassword: string) =>
  route.POST(
    setup.post("viewer", "http://test/api/account/password", {
      currentPassword,
      newPassword: "a brand new password 1",
    }),
    { params: Promise.resolve({}) },
  );

describe("the same password again", () => {
  it("is refused with 400 saying so, and counts as no guess", async () => {
    const same = await route.POST(
      setup.post("viewer", "http://test/api/account/password", {
        currentPassword: "test-password-1",
        newPassword: "test-password-1",
      }),
      { params: Promise.resolve({}) },
    );
    expect(same.status).toBe(400);
    expect((await same.json()).error).toEqual({
      code: "invalid_request",
      message: "The new password is the same as the current one: choose a different password.",
    });
  });
});

describe("guessing one's current password", () => {
  it("is refused after as many wrong guesses as signing in allows, and then signing in is too", async () => {
    for (let guess = 0; guess < ACCOUNT_ATTEMPTS_MAX; guess += 1) {
      expect((await change(`wrong guess ${guess}`)).status).toBe(403);
    }
    // The right password now changes nothing: the budget is spent.
    const refused = await change("test-password-1");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await refused.json()).error).toMatchObject({
      code: "too_many_attempts",
      message: expect.stringMatching(/^Too many wrong passwords for this account: try again in \d+ s\.$/),
    });

    const signIn = await auth.POST(
      new Request("http://test/api/auth/sign-in/email", {
        method: "POST",
        headers: {
          host: "test",
          origin: "http://test",
          "content-type": "application/json",
          [PEER_ADDRESS_HEADER]: "192.0.2.77",
        },
        body: JSON.stringify({ email: viewer.email, password: "test-password-1" }),
      }),
    );
    expect(signIn.status).toBe(429);
  });
});
