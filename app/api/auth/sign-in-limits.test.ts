import { createServer, request as httpRequest, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PEER_ADDRESS_HEADER, stampPeerAddresses } from "@/lib/server/auth/client-address";
import { ACCOUNT_ATTEMPTS_MAX } from "@/lib/server/auth/sign-in-limits";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

// Sign-in is limited by who the server knows is asking, not by what the request claims, and per account.
let viewer: TestAccount;
let route: typeof import("./[...all]/route");

const setup = setUpRouteTests(["viewer"]);

beforeAll(async () => {
  ({ viewer } = setup.accounts);
  route = await import("./[...all]/route");
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** One sign-in attempt as the server would pass it on: the socket's address stamped, the rest the client's. */
function attempt(options: { email: string; password?: string; peer: string; forwardedFor?: string }) {
  return route.POST(
    new Request("http://test/api/auth/sign-in/email", {
      method: "POST",
      headers: {
        origin: "http://test",
        host: "test",
        "content-type": "application/json",
        [PEER_ADDRESS_HEADER]: options.peer,
        ...(options.forwardedFor ? { "x-forwarded-for": options.forwardedFor } : {}),
      },
      body: JSON.stringify({ email: options.email, password: options.password ?? "wrong-password-1" }),
    }),
  );
}

const addressNumber = () => Math.floor(Math.random() * 250) + 1;
const randomAddress = () => `198.51.${addressNumber()}.${addressNumber()}`;

async function statuses(attempts: Array<() => Promise<Response>>): Promise<number[]> {
  const seen: number[] = [];
  for (const next of attempts) seen.push((await next()).status);
  return seen;
}

describe("the per-address sign-in limit", () => {
  it("is not escaped by sending a different X-Forwarded-For each time (no proxy configured)", async () => {
    const peer = randomAddress();
    const seen = await statuses(
      Array.from(
        { length: 30 },
        (_, index) => () =>
          attempt({ email: `nobody${index}@test.example`, peer, forwardedFor: randomAddress() }),
      ),
    );
    expect(seen.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(seen.slice(10).every((status) => status === 429)).toBe(true);
  });

  it("with PLAYGROUND_TRUSTED_PROXY=1 keys on the address the proxy saw, not on what the client prepended", async () => {
    vi.stubEnv("PLAYGROUND_TRUSTED_PROXY", "1");
    const seenByProxy = randomAddress();
    const proxy = randomAddress();
    const seen = await statuses(
      Array.from(
        { length: 30 },
        (_, index) => () =>
          attempt({
            email: `someone${index}@test.example`,
            peer: proxy,
            forwardedFor: `${randomAddress()}, ${seenByProxy}`,
          }),
      ),
    );
    expect(seen.filter((status) => status === 429)).toHaveLength(20);
    // Two people behind the same proxy, each seen by it at their own address, are limited apart.
    expect(
      (await attempt({ email: "other@test.example", peer: proxy, forwardedFor: randomAddress() })).status,
    ).toBe(401);
  });

  it("refuses a PLAYGROUND_TRUSTED_PROXY that is not a number of proxies", async () => {
    const { readTrustedProxyHops } = await import("@/lib/server/auth/client-address");
    expect(() => readTrustedProxyHops({ PLAYGROUND_TRUSTED_PROXY: "yes" })).toThrow(/number of proxies/);
    expect(readTrustedProxyHops({})).toBe(0);
  });
});

describe("the per-account sign-in limit", () => {
  it("limits guesses at one account from many addresses, and a successful sign-in costs nothing", async () => {
    const email = viewer.email;
    expect((await attempt({ email, password: "test-password-1", peer: randomAddress() })).status).toBe(200);
    const seen = await statuses(
      Array.from({ length: ACCOUNT_ATTEMPTS_MAX + 5 }, () => () => attempt({ email, peer: randomAddress() })),
    );
    expect(seen.slice(0, ACCOUNT_ATTEMPTS_MAX).every((status) => status === 401)).toBe(true);
    expect(seen.slice(ACCOUNT_ATTEMPTS_MAX).every((status) => status === 429)).toBe(true);
    const limited = await attempt({
      email: email.toUpperCase(),
      password: "test-password-1",
      peer: randomAddress(),
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("the socket's address", () => {
  it("is stamped on each request by the server, replacing whatever the client sent under its name", async () => {
    stampPeerAddresses(Server);
    const server = createServer((request, response) => {
      response.end(String(request.headers[PEER_ADDRESS_HEADER]));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        const sent = httpRequest(
          {
            port,
            host: "127.0.0.1",
            headers: { [PEER_ADDRESS_HEADER]: "203.0.113.7", "x-forwarded-for": "203.0.113.8" },
          },
          (response) => {
            let text = "";
            response.on("data", (chunk) => {
              text += chunk;
            });
            response.on("end", () => resolve(text));
          },
        );
        sent.on("error", reject);
        sent.end();
      });
      expect(body).toBe("127.0.0.1");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
