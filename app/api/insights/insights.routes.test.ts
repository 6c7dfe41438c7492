import { beforeAll, describe, expect, it } from "vitest";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { routeParams, setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

let accounts: Record<Role, TestAccount>;
let routes: {
  runs: typeof import("../runs/route");
  run: typeof import("../runs/[id]/route");
  decision: typeof import("../runs/[id]/decision/route");
  insights: typeof import("./route");
};

const setup = setUpRouteTests();

beforeAll(async () => {
  accounts = setup.accounts;
  routes = {
    runs: await import("../runs/route"),
    run: await import("../runs/[id]/route"),
    decision: await import("../runs/[id]/decision/route"),
    insights: await import("./route"),
  };
});

const params = routeParams;
const as = (role: Role, url = "http://test/api/insights", init: RequestInit = {}) =>
  new Request(url, { ...init, headers: { "content-type": "application/json", ...accounts[role].headers } });

async function waitingRun() {
  const created = await routes.runs.POST(
    as("operator", "http://test/api/runs", {
      method: "POST",
      body: JSON.stringify(gatedWriteScenario("insights")),
    }),
  );
  const { runId } = await created.json();
  await expect
    .poll(async () => (await (await routes.run.GET(as("viewer"), params(runId))).json()).status, {
      timeout: 20_000,
    })
    .toBe("WAITING_FOR_APPROVAL");
  const report = await (await routes.run.GET(as("viewer"), params(runId))).json();
  return { runId, turnDigest: report.pending.turnDigest as string };
}

describe("GET /api/insights", () => {
  it("counts a decided wait and a waiting one for its approver, as JSON and as CSV", async () => {
    const decided = await waitingRun();
    const decision = await routes.decision.POST(
      as("approver", "http://test", {
        method: "POST",
        body: JSON.stringify({ approve: true, turnDigest: decided.turnDigest }),
      }),
      params(decided.runId),
    );
    expect(decision.status).toBe(200);
    await waitingRun();

    const response = await routes.insights.GET(as("operator", "http://test/api/insights?range=24h"));
    expect(response.status).toBe(200);
    const insights = await response.json();
    expect(insights).toMatchObject({ range: "24h", runs: 2, truncated: false });
    expect(insights.waits).toEqual({ started: 2, decided: 1, expired: 0, cancelled: 0, open: 1 });
    expect(insights.byApprover).toEqual([
      expect.objectContaining({ approver: accounts.approver.name, decisions: 1 }),
    ]);
    expect(insights.waitsOverTime).toHaveLength(24);

    const csv = await routes.insights.GET(
      as("admin", "http://test/api/insights?range=24h&format=csv&table=by-approver"),
    );
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const lines = (await csv.text()).trim().split("\n");
    expect(lines[0]).toBe("approver,decisions,p50Ms,p90Ms,maxMs");
    expect(lines).toHaveLength(2);
  });

  it("is for operators and admins, and names a range it cannot read", async () => {
    expect((await routes.insights.GET(new Request("http://test/api/insights"))).status).toBe(401);
    const asViewer = await routes.insights.GET(as("viewer"));
    expect(asViewer.status).toBe(403);
    // The role this route needs, not what operators are best known for (starting and cancelling runs).
    expect((await asViewer.json()).error.message).toBe(
      `This needs the operator role; ${accounts.viewer.email} is viewer.`,
    );
    const bad = await routes.insights.GET(as("operator", "http://test/api/insights?range=1y"));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("range");
  });
});
