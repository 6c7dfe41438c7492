import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/db/client";
import { openTestDatabase } from "@/db/testing/test-database";
import { createAuth } from "@/lib/server/auth/auth";
import { listPageFiles, listRouteHandlers, listServerActions } from "@/lib/server/testing/app-routes";

// docs/security.md says who can reach every page, route, server action and better-auth endpoint.
// Its tables are this test's input: what the app serves (found in app/ and in better-auth's own
// endpoint list) must each have a row, each row must name something that exists, and the role a
// row gives must be the one the code asks for.

const LEVELS = ["nobody", "stranger", "agent", "viewer", "operator", "approver", "admin"];

/** The rows of the table under `## heading`: first cell's code span → second cell. */
function readTable(markdown: string, heading: string): Map<string, string> {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/security.md has no "## ${heading}" section`);
  const end = markdown.indexOf("\n## ", start + 1);
  const rows = new Map<string, string>();
  for (const line of markdown.slice(start, end < 0 ? undefined : end).split("\n")) {
    const match = /^\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|/.exec(line);
    if (!match?.[1] || !match[2]) continue;
    if (rows.has(match[1])) throw new Error(`docs/security.md lists ${match[1]} twice`);
    rows.set(match[1], match[2]);
  }
  return rows;
}

const markdown = readFileSync(path.join(process.cwd(), "docs", "security.md"), "utf8");
const sections = {
  pages: readTable(markdown, "Pages"),
  routes: readTable(markdown, "Route handlers"),
  actions: readTable(markdown, "Server actions"),
  auth: readTable(markdown, "better-auth endpoints"),
};

/** The role a piece of code asks for: the first `role: "x"` (options) or `requirePageIdentity("x")`. */
function roleAskedIn(text: string): string | null {
  const page = /requirePageIdentity\(\s*(?:"(\w+)")?\s*\)/.exec(text);
  if (page) return page[1] ?? "viewer";
  return /\brole:\s*"(\w+)"/.exec(text)?.[1] ?? null;
}

describe("docs/security.md", () => {
  it("gives every row a known role", () => {
    for (const rows of Object.values(sections)) {
      for (const [entry, role] of rows) expect(LEVELS, `${entry}: ${role}`).toContain(role);
    }
  });

  it("lists every page, with the role it asks for before it reads anything", () => {
    const pages = listPageFiles();
    expect([...sections.pages.keys()].sort()).toEqual(pages.map((page) => page.path).sort());
    for (const page of pages) {
      const source = readFileSync(page.file, "utf8");
      const documented = sections.pages.get(page.path);
      expect(roleAskedIn(source) ?? "stranger", page.path).toBe(documented);
      if (documented === "stranger") continue;
      // The page's own first wait is the identity check: nothing is read before it.
      const body = source.slice(source.indexOf("export default async function"));
      expect(/await\s+(\w+)/.exec(body)?.[1], `${page.file} checks identity first`).toBe(
        "requirePageIdentity",
      );
    }
  });

  it("lists every route handler method, with the role it asks for", () => {
    const routes = listRouteHandlers();
    const found = routes.flatMap((route) => route.methods.map((method) => `${method} ${route.path}`));
    expect([...sections.routes.keys()].sort()).toEqual(found.sort());
    for (const route of routes) {
      const source = readFileSync(route.file, "utf8");
      for (const method of route.methods) {
        const handler = new RegExp(
          `export\\s+const\\s+${method}\\s*=\\s*handleRoute\\(\\s*\\{\\s*role:\\s*"(\\w+)"`,
        );
        const asked = handler.exec(source)?.[1];
        // Handlers outside handleRoute (health, readiness, better-auth's) answer strangers.
        const expected = asked ?? (/export\s*\{/.test(source) ? undefined : "stranger");
        if (expected)
          expect(sections.routes.get(`${method} ${route.path}`), `${method} ${route.path}`).toBe(expected);
      }
    }
  });

  it("lists every server action, with the role it asks for", () => {
    const actions = listServerActions();
    expect([...sections.actions.keys()].sort()).toEqual(actions.map((action) => action.name).sort());
    for (const action of actions) {
      const source = readFileSync(action.file, "utf8");
      const start = source.indexOf(`export async function ${action.name}`);
      const next = source.indexOf("\nexport ", start + 1);
      const body = source.slice(start, next < 0 ? undefined : next);
      // Outside serverAction an action takes no role: it must be one a stranger may call.
      const asked = /serverAction\(/.test(body) ? roleAskedIn(body) : "stranger";
      expect(sections.actions.get(action.name), action.name).toBe(asked);
    }
  });

  describe("better-auth endpoints", () => {
    let handle: DatabaseHandle;
    beforeAll(async () => {
      handle = await openTestDatabase();
    });
    afterAll(async () => {
      await handle.close();
    });

    it("lists every endpoint better-auth serves under /api/auth", () => {
      const auth = createAuth(handle.db, "a-secret-for-listing-endpoints-only-0123456789");
      const served = Object.values(auth.api).flatMap((endpoint) => {
        const { path: endpointPath, options } = endpoint as {
          path?: string;
          options?: { method?: string | string[] };
        };
        if (!endpointPath) return [];
        const methods = Array.isArray(options?.method) ? options.method : [options?.method ?? "GET"];
        return methods
          .filter((method) => method !== "*")
          .map((method) => `${method} /api/auth${endpointPath}`);
      });
      expect([...sections.auth.keys()].sort()).toEqual([...new Set(served)].sort());
    });
  });
});
