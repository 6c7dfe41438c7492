import { beforeAll, describe, expect, it } from "vitest";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { routeParams, setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

let accounts: Record<Role, TestAccount>;
let routes: { runs: typeof import("./route"); trace: typeof import("./[id]/trace/route") };

const setup = setUpRouteTests();

beforeAll(async () => {
  accounts = setup.accounts;
  routes = { runs: await import("./route"), trace: await import("./[id]/trace/route") };
});

const params = routeParams;

describe("GET /api/runs/<id>/trace", () => {
  it("gives a viewer the run as an OTLP/JSON file to download, and nothing to a stranger", async () => {
    const created = await routes.runs.POST(
      new Request("http://test/api/runs", {
        method: "POST",
        headers: { "content-type": "application/json", ...accounts.operator.headers },
        body: JSON.stringify(gatedWriteScenario("trace export")),
      }),
    );
    expect(created.status).toBe(201);
    const { runId } = await created.json();

    const response = await routes.trace.GET(
      new Request("http://test", { headers: accounts.viewer.headers }),
      params(runId),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="run-${runId}-trace.json"`,
    );
    const file = await response.json();
    const spans = file.resourceSpans[0].scopeSpans[0].spans;
    expect(spans[0]).toMatchObject({ name: "run", traceId: runId.replaceAll("-", "") });

    expect((await routes.trace.GET(new Request("http://test"), params(runId))).status).toBe(401);
    const unknown = await routes.trace.GET(
      new Request("http://test", { headers: accounts.viewer.headers }),
      params("00000000-0000-4000-8000-000000000000"),
    );
    expect(unknown.status).toBe(404);
  });
});
