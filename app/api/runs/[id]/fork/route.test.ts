import { beforeAll, describe, expect, it } from "vitest";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { routeParams, setUpRouteTests } from "@/lib/server/testing/route-tests";

// The routes use the process-wide database: hand them a fresh test database.
const setup = setUpRouteTests(["viewer", "operator"]);
const accounts = {
  get viewer() {
    return setup.accounts.viewer;
  },
  get operator() {
    return setup.accounts.operator;
  },
};
let routes: {
  runs: typeof import("../../route");
  fork: typeof import("./route");
  view: typeof import("../view/route");
};

beforeAll(async () => {
  routes = {
    runs: await import("../../route"),
    fork: await import("./route"),
    view: await import("../view/route"),
  };
});

const params = routeParams;
const getFork = (runId: string, query: string, headers: Record<string, string> = accounts.viewer.headers) =>
  routes.fork.GET(new Request(`http://test/api/runs/${runId}/fork${query}`, { headers }), params(runId));
const start = (body: unknown, query = "") =>
  routes.runs.POST(
    new Request(`http://test/api/runs${query}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...accounts.operator.headers },
      body: JSON.stringify(body),
    }),
  );

async function startRun(body: unknown, query = ""): Promise<string> {
  const response = await start(body, query);
  expect(response.status).toBe(201);
  return (await response.json()).runId;
}

async function viewOf(runId: string) {
  return (
    await routes.view.GET(new Request("http://test", { headers: accounts.viewer.headers }), params(runId))
  ).json();
}

async function waitUntilWaiting(runId: string) {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const view = await viewOf(runId);
    if (view.status === "WAITING_FOR_APPROVAL") return view;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`run ${runId} never waited`);
}

describe("GET /api/runs/[id]/fork and POST /api/runs?forkOf=", () => {
  it("gives the run as a fork's scenario, which starts and records where it came from", async () => {
    const original = await startRun(gatedWriteScenario("to fork"));
    await waitUntilWaiting(original);
    const response = await getFork(original, "?step=1");
    expect(response.status).toBe(200);
    const fork = await response.json();
    expect(fork).toMatchObject({
      forkedFrom: { runId: original, step: 1 },
      scenario: { name: "to fork (fork of step 1)", model: { kind: "scripted" }, decisions: [] },
    });
    const forked = await startRun(fork.scenario, `?forkOf=${original}&step=1`);
    expect((await viewOf(forked)).forkedFrom).toEqual({ runId: original, step: 1 });
    expect((await viewOf(original)).forkedFrom).toBeNull();
  });

  it("refuses a step the run does not have with 400 saying which it has, and a run nobody has with 404", async () => {
    const original = await startRun(gatedWriteScenario("one step so far"));
    await waitUntilWaiting(original);
    for (const query of [
      "?step=0",
      "?step=2",
      "?step=999999",
      "?step=-1",
      "?step=1.5",
      "?step=two",
      "?step=",
      "",
    ]) {
      const response = await getFork(original, query);
      expect(response.status, query).toBe(400);
      const { error } = await response.json();
      expect(error.code).toBe("invalid_request");
      // As every 400 (docs/http-api.md): an issue naming the parameter, for a client to point at.
      expect(error.issues, query).toEqual([{ path: "step", message: expect.any(String) }]);
    }
    expect((await (await getFork(original, "?step=2")).json()).error).toMatchObject({
      message: `Run ${original} has 1 step; fork from a step between 1 and 1, not 2.`,
      issues: [{ path: "step", message: "must be between 1 and 1, a step the run has; got 2" }],
    });
    expect((await (await getFork(original, "?step=-1")).json()).error.issues).toEqual([
      { path: "step", message: 'must be a whole number, 1 for the first step; got "-1"' },
    ]);
    for (const runId of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const response = await getFork(runId, "?step=1");
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe("not_found");
    }
    // As reading the run: nobody signed in gets nothing.
    expect((await getFork(original, "?step=1", {})).status).toBe(401);
  });

  it("starts no fork of a run that does not exist (404) or at a step it does not have (400)", async () => {
    const original = await startRun(gatedWriteScenario("origin"));
    await waitUntilWaiting(original);
    const scenario = gatedWriteScenario("a fork that should not start");
    const missing = await start(scenario, "?forkOf=00000000-0000-4000-8000-000000000000&step=1");
    expect(missing.status).toBe(404);
    expect((await start(scenario, "?forkOf=not-a-uuid&step=1")).status).toBe(404);
    const outOfRange = await start(scenario, `?forkOf=${original}&step=3`);
    expect(outOfRange.status).toBe(400);
    expect((await outOfRange.json()).error.message).toMatch(/has 1 step/);
    const stepAlone = await start(scenario, "?step=1");
    expect(stepAlone.status).toBe(400);
    expect((await stepAlone.json()).error.issues).toEqual([{ path: "forkOf", message: expect.any(String) }]);
    const forkOfAlone = await start(scenario, `?forkOf=${original}`);
    expect(forkOfAlone.status).toBe(400);
    expect((await forkOfAlone.json()).error.issues).toEqual([{ path: "step", message: expect.any(String) }]);
  });
});
