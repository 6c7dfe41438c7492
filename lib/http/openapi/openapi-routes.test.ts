import { describe, expect, it } from "vitest";
import { listRouteHandlers } from "@/lib/server/testing/app-routes";
import { API_OPERATIONS, buildOpenApiDocument, openApiPath, UNDESCRIBED_ROUTES } from "./openapi-document";

// The OpenAPI description (docs/openapi.md) is checked against the route files themselves: a
// route method added without its entry, or an entry left after its route went, fails here.
const document = buildOpenApiDocument();

function describedMethods(): string[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe("the OpenAPI description", () => {
  it("states every route method under app/api, and nothing else (bar better-auth's, the test-only faults and the unknown paths' 404)", () => {
    const served = listRouteHandlers()
      .filter((route) => route.path.startsWith("/api/"))
      .filter((route) => !UNDESCRIBED_ROUTES.some((excluded) => excluded.path.test(route.path)))
      .flatMap((route) => route.methods.map((method) => `${method} ${openApiPath(route.path)}`));
    expect(served.length).toBeGreaterThan(30);
    expect(describedMethods().sort()).toEqual(served.sort());
  });

  it("states each route method once", () => {
    const keys = API_OPERATIONS.map((operation) => `${operation.method} ${operation.path}`);
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([]);
  });

  it("describes request bodies with the routes' own zod schemas, refused fields included", () => {
    const decision = document.components.schemas.postRunsIdDecisionBody as {
      properties: Record<string, unknown>;
      additionalProperties?: unknown;
    };
    expect(Object.keys(decision.properties)).toEqual(
      expect.arrayContaining([
        "approve",
        "turnDigest",
        "reason",
        "editedArguments",
        "scope",
        "alwaysAllow",
        "grant",
      ]),
    );
    expect(decision.additionalProperties).toBe(false);
    const scenario = document.components.schemas.postRunsBody as { properties: Record<string, unknown> };
    expect(Object.keys(scenario.properties)).toEqual(expect.arrayContaining(["name", "model", "tools"]));
    const listRuns = document.paths["/api/runs"]?.get as
      | { parameters: Array<{ name: string; schema: unknown }> }
      | undefined;
    const archived = listRuns?.parameters.find((parameter) => parameter.name === "archived");
    expect(archived?.schema).toMatchObject({ enum: ["hide", "include", "only"] });
  });

  it("points every $ref at a component that exists", () => {
    const references = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]);
    expect(references.length).toBeGreaterThan(0);
    for (const reference of new Set(references)) {
      const name = reference?.replace("#/components/schemas/", "") ?? "";
      expect(document.components.schemas, reference).toHaveProperty([name]);
    }
  });

  it("names who may call each operation, as docs/security.md does", () => {
    const health = document.paths["/api/health"]?.get as { security: unknown[] };
    expect(health.security).toEqual([]);
    const remove = document.paths["/api/runs/{id}"]?.delete as { "x-least-role": string; responses: object };
    expect(remove["x-least-role"]).toBe("operator");
    expect(Object.keys(remove.responses)).toEqual(
      expect.arrayContaining(["200", "401", "403", "404", "409"]),
    );
  });
});
