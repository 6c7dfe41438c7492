import { getRouteRegex } from "next/dist/shared/lib/router/utils/route-regex";
import { getSortedRoutes } from "next/dist/shared/lib/router/utils/sorted-routes";
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { describe, expect, it } from "vitest";
import { ROUTE_METHODS } from "@/lib/http/answer-other-methods";
import { listRouteHandlers } from "@/lib/server/testing/app-routes";
import { config as proxyConfig } from "@/proxy";
import * as route from "./route";

// An /api path no route matches is a JSON 404 `not_found` naming the path, not Next's HTML 404
// page, for any method and for anyone (docs/http-api.md#errors).
type Answer = (request: Request) => Response | Promise<Response>;
const answers = route as Partial<Record<(typeof ROUTE_METHODS)[number], Answer>>;

async function call(method: string, url: string, headers: Record<string, string> = {}) {
  const answer = answers[method as keyof typeof answers];
  if (!answer) throw new Error(`the catch-all exports no ${method}`);
  return answer(new Request(url, { method, headers }));
}

describe("an /api path no route matches", () => {
  it("answers GET with a 404 not_found in the one error body, naming the path", async () => {
    const response = await call("GET", "http://test/api/nonexistent", { "x-request-id": "unknown-path-1" });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("x-request-id")).toBe("unknown-path-1");
    expect(await response.json()).toEqual({
      error: {
        code: "not_found",
        message: "There is no API route at /api/nonexistent: /api/openapi.json lists the routes there are.",
      },
      pending: null,
    });
  });

  it("answers DELETE the same, whoever asks (a made-up token is not looked at)", async () => {
    const response = await call("DELETE", "http://test/api/runs;x=1", { authorization: "Bearer tp_forged" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        code: "not_found",
        message: "There is no API route at /api/runs;x=1: /api/openapi.json lists the routes there are.",
      },
      pending: null,
    });
  });

  it("answers every method itself, on /api too; HEAD is Next's GET without the body", async () => {
    expect(Object.keys(route).sort()).toEqual(ROUTE_METHODS.filter((method) => method !== "HEAD").sort());
    for (const method of ROUTE_METHODS.filter((each) => each !== "HEAD")) {
      const response = await call(method, "http://test/api");
      expect(response.status, method).toBe(404);
      expect((await response.json()).error, method).toMatchObject({
        code: "not_found",
        message: expect.stringContaining("no API route at /api:"),
      });
    }
  });

  it("repeats no control or bidirectional character, and no more than 200 characters of the path", async () => {
    const sneaky = await call("GET", "http://test/api/\u202Eevil\u0007\u0000x");
    const { message } = (await sneaky.json()).error as { message: string };
    expect(message).toContain("/api/%E2%80%AEevil%07%00x");
    expect(message).not.toMatch(/[\p{Cc}\p{Cf}]/u);

    const long = await call("GET", `http://test/api/${"a".repeat(10_000)}`);
    const longMessage = (await long.json()).error.message as string;
    expect(longMessage).toContain(`/api/${"a".repeat(195)}…:`);
    expect(longMessage.length).toBeLessThan(300);
  });
});

// Next's own ordering and matching of the app's routes (its internals: an upgrade that moves them
// fails here, loudly): the catch-all comes after every other route, so it answers only what no
// other route does, and Next accepts it beside them (it throws at build time on a route at /api
// itself, which would clash with this optional catch-all).
describe("the catch-all beside the app's routes", () => {
  const sorted = getSortedRoutes(listRouteHandlers().map((handler) => handler.path));
  const matched = (pathname: string) => sorted.find((each) => getRouteRegex(each).re.test(pathname));

  it("is tried after every other route", () => {
    const apiRoutes = sorted.filter((each) => each.startsWith("/api"));
    expect(apiRoutes.at(-1)).toBe("/api/[[...path]]");
  });

  it("leaves every route its own paths, better-auth's catch-all among them", () => {
    expect(matched("/api/runs")).toBe("/api/runs");
    expect(matched("/api/runs/a-run")).toBe("/api/runs/[id]");
    expect(matched("/api/runs/a-run/allowances/write_file")).toBe("/api/runs/[id]/allowances/[tool]");
    expect(matched("/api/agent/runs/a-run/next")).toBe("/api/agent/runs/[id]/next");
    expect(matched("/api/openapi.json")).toBe("/api/openapi.json");
    expect(matched("/api/auth/sign-in/email")).toBe("/api/auth/[...all]");
    expect(matched("/decision-links/a-token")).toBe("/decision-links/[token]");
  });

  it("takes /api itself and what no route matches", () => {
    for (const pathname of [
      "/api",
      "/api/nonexistent",
      "/api/runs;x=1",
      "/api/runs/a-run/nope",
      "/api/a/b/c",
    ]) {
      expect(matched(pathname), pathname).toBe("/api/[[...path]]");
    }
  });
});

describe("proxy.ts", () => {
  const runsFor = (url: string) => unstable_doesMiddlewareMatch({ config: proxyConfig, url });

  it("leaves /api itself to the catch-all, as every API path: a stranger's browser is not sent to sign in", () => {
    expect(runsFor("/api")).toBe(false);
    expect(runsFor("/api/nonexistent")).toBe(false);
    expect(runsFor("/api/runs")).toBe(false);
  });

  it("still runs before every page, one whose name starts with api too", () => {
    expect(runsFor("/")).toBe(true);
    expect(runsFor("/runs/a-run")).toBe(true);
    expect(runsFor("/apiary")).toBe(true);
  });
});
