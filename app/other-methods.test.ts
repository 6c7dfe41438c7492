import { describe, expect, it } from "vitest";
import { isOtherMethodAnswer, ROUTE_METHODS, type RouteMethod } from "@/lib/http/answer-other-methods";
import { listRouteHandlers } from "@/lib/server/testing/app-routes";

// Every route file under app/ (the API's, and any other such as the decision links) answers every
// method it does not take with the one error body and `Allow`, not with Next's bare 405
// (lib/http/answer-other-methods.ts). Walked from the folders, so a new route that forgets is
// caught here.
const allRoutes = listRouteHandlers();

/** What no other API route matches: it takes every method itself, each a 404 (its own route.test.ts). */
const UNKNOWN_API_PATHS = "/api/[[...path]]";
const routes = allRoutes.filter((route) => route.path !== UNKNOWN_API_PATHS);

type RouteModule = Partial<Record<RouteMethod, unknown>>;

/** The route's path with a value in each dynamic segment. */
function urlOf(path: string): string {
  return `http://127.0.0.1${path.replace(/\[\.{3}\w+\]/g, "a/b").replace(/\[\w+\]/g, "x")}`;
}

describe("a method a route does not take", () => {
  it("walks the routes, outside app/api too", () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.map((route) => route.path)).toContain("/decision-links/[token]");
  });

  it("leaves no method to Next at the catch-all of unknown API paths but HEAD (its GET)", () => {
    const catchAll = allRoutes.find((route) => route.path === UNKNOWN_API_PATHS);
    expect(catchAll?.methods).toEqual(ROUTE_METHODS.filter((method) => method !== "HEAD").sort());
  });

  describe.each(routes)("$path", ({ path, file }) => {
    it("is answered with 405, the one error body and Allow; OPTIONS with 204 and Allow", async () => {
      const route = (await import(file)) as RouteModule;
      const taken = ROUTE_METHODS.filter(
        (method) => typeof route[method] === "function" && !isOtherMethodAnswer(route[method]),
      );
      expect(taken.length).toBeGreaterThan(0);
      const allow = ROUTE_METHODS.filter(
        (method) =>
          taken.includes(method) || method === "OPTIONS" || (method === "HEAD" && taken.includes("GET")),
      ).join(", ");
      for (const method of ROUTE_METHODS) {
        if (taken.includes(method)) continue;
        const answer = route[method];
        if (method === "HEAD" && taken.includes("GET")) {
          // Next answers HEAD with the route's GET, without its body.
          expect(answer, `${path} HEAD`).toBeUndefined();
          continue;
        }
        expect(isOtherMethodAnswer(answer), `${path} ${method}: export answerOtherMethods's answer`).toBe(
          true,
        );
        const response = await (answer as (request: Request) => Promise<Response> | Response)(
          new Request(urlOf(path), { method, headers: { "x-request-id": "other-methods-1" } }),
        );
        expect(response.headers.get("allow"), `${path} ${method}`).toBe(allow);
        expect(response.headers.get("x-request-id")).toBe("other-methods-1");
        if (method === "OPTIONS") {
          expect(response.status).toBe(204);
          continue;
        }
        expect(response.status, `${path} ${method}`).toBe(405);
        expect(response.headers.get("content-type")).toBe("application/json");
        expect(await response.json()).toEqual({
          error: {
            code: "method_not_allowed",
            message: `The method ${method} is not one this route takes: ${allow}.`,
          },
          pending: null,
        });
      }
    });
  });
});
