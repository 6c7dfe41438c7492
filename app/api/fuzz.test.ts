import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

// Random bodies, content types and run ids against every route that takes a body:
// whatever arrives, the answer is a 2xx or a 4xx with the one error body, never a 500.
let admin: TestAccount;
type Post = (request: Request, context?: { params: Promise<{ id: string }> }) => Promise<Response>;
let routes: Array<{ name: string; post: Post; hasRunId: boolean }>;

const setup = setUpRouteTests(["admin"]);

beforeAll(async () => {
  vi.stubEnv("PLAYGROUND_FAULTS", "1");
  ({ admin } = setup.accounts);
  routes = [
    { name: "POST /api/runs", post: (await import("./runs/route")).POST, hasRunId: false },
    {
      name: "POST /api/runs/[id]/decision",
      post: (await import("./runs/[id]/decision/route")).POST,
      hasRunId: true,
    },
    {
      name: "POST /api/runs/[id]/cancel",
      post: (await import("./runs/[id]/cancel/route")).POST,
      hasRunId: true,
    },
    {
      name: "POST /api/faults/unreadable-state",
      post: (await import("./faults/unreadable-state/route")).POST,
      hasRunId: false,
    },
  ];
});
afterAll(async () => {
  vi.unstubAllEnvs();
});

/** Any string at all: lone surrogates, NUL and other control characters included. */
const anyText = fc.string({ unit: "binary", maxLength: 40 });

/** Scenario-shaped objects: mostly close to valid, so the fuzz reaches past the first check. */
const scenarioLike = fc.record(
  {
    name: anyText,
    limits: fc.record(
      { maxParallelToolCalls: fc.oneof(fc.integer(), fc.double(), anyText) },
      { requiredKeys: [] },
    ),
    workspace: fc.dictionary(anyText, anyText, { maxKeys: 3 }),
    model: fc.oneof(
      fc.record({
        kind: fc.constant("scripted"),
        turns: fc.array(
          fc.record({
            text: anyText,
            calls: fc.array(
              fc.record({
                name: fc.oneof(fc.constantFrom("read_file", "write_file", "finish", "memory_set"), anyText),
                arguments: fc.oneof(
                  anyText,
                  fc.dictionary(anyText, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 }),
                ),
              }),
              { maxLength: 4 },
            ),
          }),
          { maxLength: 3 },
        ),
      }),
      fc.record({
        kind: fc.constant("openai-compatible"),
        endpoint: anyText,
        prompt: anyText,
        baseURL: anyText,
      }),
    ),
    tools: fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 2 }),
  },
  { requiredKeys: ["name", "model"] },
);

/** Valid scenarios whose scripted calls carry random names and arguments: the runs start and go on. */
const runnableScenario = fc.record({
  name: fc.string({ minLength: 1, maxLength: 20 }),
  approvals: fc.constant({ write_file: "never" }),
  model: fc.record({
    kind: fc.constant("scripted"),
    turns: fc.array(
      fc.record({
        calls: fc.array(
          fc.record({
            name: fc.oneof(fc.constantFrom("read_file", "write_file", "memory_set", "list_files"), anyText),
            arguments: fc.oneof(
              anyText,
              fc.dictionary(anyText, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 }),
            ),
          }),
          { maxLength: 4 },
        ),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  }),
});

const deepNesting = fc
  .integer({ min: 50, max: 5000 })
  .map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`);

// Runnable scenarios weigh four times the rest: a run starts only when one meets POST /api/runs (one
// route in four) with a JSON type (one in two). At equal weights that was about 5 of 300 requests,
// and about one run in a hundred started none and failed the check below; now about 14.
const bodyText = fc.oneof(
  fc.jsonValue({ maxDepth: 5 }).map((value) => JSON.stringify(value)),
  scenarioLike.map((value) => JSON.stringify(value)),
  { weight: 4, arbitrary: runnableScenario.map((value) => JSON.stringify(value)) },
  fc
    .record(
      {
        approve: fc.oneof(fc.boolean(), anyText),
        turnDigest: fc.oneof(anyText, fc.constant(null)),
        actor: anyText,
        reason: anyText,
      },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value)),
  fc
    .record({ scope: fc.oneof(fc.constantFrom("turn", "run"), anyText) })
    .map((value) => JSON.stringify(value)),
  anyText,
  deepNesting,
);

const contentType = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "text/plain",
  "application/x-www-form-urlencoded",
  "",
);

const runId = fc.oneof(fc.uuid(), anyText, fc.constant("00000000-0000-4000-8000-000000000000"));

const FUZZ_RUNS = 300;

describe("the HTTP API under random input", () => {
  it(
    "never answers 500, and every refusal has the one error body",
    async () => {
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(fc.nat(), bodyText, contentType, runId, async (routeIndex, body, type, id) => {
          const route = routes[routeIndex % routes.length];
          if (!route) throw new Error("no route");
          const request = new Request("http://test/api", {
            method: "POST",
            headers: { ...admin.headers, ...(type ? { "content-type": type } : {}) },
            body,
          });
          const response = await route.post(request, { params: Promise.resolve({ id }) });
          statuses.add(response.status);
          expect(response.status, `${route.name} answered ${response.status}`).toBeLessThan(500);
          if (response.status >= 400) {
            const answer = await response.json();
            expect(answer).toEqual({
              error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
              pending: answer.pending === null ? null : expect.any(Object),
            });
          }
        }),
        { numRuns: FUZZ_RUNS },
      );
      // The inputs reached past the boundary: runs were started, and each kind of refusal was seen.
      expect([...statuses].sort()).toEqual(expect.arrayContaining([201, 400, 404, 415]));
      // A budget for 300 requests through the routes and the database on a busy machine (the flat 30 s
      // ran out at load 26); a request that hangs still fails it.
    },
    FUZZ_RUNS * 400,
  );
});
