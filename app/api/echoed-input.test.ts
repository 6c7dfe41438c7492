import { beforeAll, describe, expect, it } from "vitest";
import { routeParams, setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

// What a refusal echoes of the path or the query it refuses: cut short, and every character that
// would not show as itself escaped, so a long or hostile id cannot fill or forge the message.
let admin: TestAccount;
let routes: {
  run: typeof import("./runs/[id]/route");
  runs: typeof import("./runs/route");
  events: typeof import("./runs/[id]/events/route");
  grant: typeof import("./grants/[id]/route");
  user: typeof import("./users/[email]/route");
  token: typeof import("./tokens/[id]/route");
};

const setup = setUpRouteTests(["admin"]);

beforeAll(async () => {
  ({ admin } = setup.accounts);
  routes = {
    run: await import("./runs/[id]/route"),
    runs: await import("./runs/route"),
    events: await import("./runs/[id]/events/route"),
    grant: await import("./grants/[id]/route"),
    user: await import("./users/[email]/route"),
    token: await import("./tokens/[id]/route"),
  };
});

const as = (url: string, init: RequestInit = {}) =>
  new Request(url, { ...init, headers: { "content-type": "application/json", ...admin.headers } });

async function errorOf(response: Response, status: number) {
  expect(response.status).toBe(status);
  return (await response.json()).error as { code: string; message: string; issues?: unknown };
}

describe("a refusal quotes what the client sent, bounded and escaped", () => {
  it("cuts a long run id to 64 characters in the 404", async () => {
    const id = "a".repeat(3000);
    const error = await errorOf(await routes.run.GET(as("http://test/api/runs/x"), routeParams(id)), 404);
    expect(error.message).toBe(`No run "${"a".repeat(64)}…".`);
  });

  it("escapes a bidirectional override and other invisible characters rather than echoing them", async () => {
    const id = "\u202e💩\u200b";
    const error = await errorOf(await routes.run.GET(as("http://test/api/runs/x"), routeParams(id)), 404);
    expect(error.message).toBe('No run "\\u202e💩\\u200b".');
    const scenario = {
      name: "a fork of nothing",
      model: { kind: "scripted", turns: [{ calls: [{ name: "finish", arguments: { summary: "done" } }] }] },
    };
    const forked = await routes.runs.POST(
      as(`http://test/api/runs?forkOf=${encodeURIComponent(id)}&step=1`, {
        method: "POST",
        body: JSON.stringify(scenario),
      }),
    );
    expect((await errorOf(forked, 404)).message).toBe('No run "\\u202e💩\\u200b".');
    const grant = await routes.grant.DELETE(as("http://test/api/grants/x", { method: "DELETE" }), {
      params: Promise.resolve({ id: `\u202e${"b".repeat(100)}` }),
    });
    expect((await errorOf(grant, 400)).issues).toEqual([
      { path: "id", message: `must be a grant id (a UUID); got "\\u202e${"b".repeat(63)}…"` },
    ]);
  });

  it("bounds a query value it echoes", async () => {
    const run = crypto.randomUUID();
    const events = await routes.events.GET(
      as(`http://test/api/runs/${run}/events?after=${"x".repeat(3000)}`),
      routeParams(run),
    );
    expect((await errorOf(events, 400)).issues).toEqual([
      { path: "after", message: `must be a whole number of events, got "${"x".repeat(64)}…"` },
    ]);
  });

  it("reads the address in /api/users/<email> as Next decoded it: /api/users/%25 is a 400 naming it, not a 500", async () => {
    const user = await routes.user.DELETE(as("http://test/api/users/%25", { method: "DELETE" }), {
      params: Promise.resolve({ email: "%" }),
    });
    expect((await errorOf(user, 400)).issues).toEqual([{ path: "email", message: "enter an email address" }]);
  });

  it("names the path segment a NUL is in, not the body", async () => {
    const user = await routes.user.DELETE(as("http://test/api/users/x", { method: "DELETE" }), {
      params: Promise.resolve({ email: "\u0000" }), // /api/users/%00, as Next decodes it
    });
    const nul = "contains a NUL character (\\u0000), which cannot be stored";
    const userError = await errorOf(user, 400);
    expect(userError.issues).toEqual([{ path: "email", message: nul }]);
    expect(userError.message).toBe(`Invalid request: email: ${nul}`);
    const token = await routes.token.DELETE(as("http://test/api/tokens/x", { method: "DELETE" }), {
      params: Promise.resolve({ id: "a\u0000b" }),
    });
    expect((await errorOf(token, 400)).issues).toEqual([{ path: "id", message: nul }]);
  });
});
