import parsePrometheusTextFormat, { type MetricFamily } from "parse-prometheus-text-format";
import { beforeAll, describe, expect, it } from "vitest";
import { slowReadTool } from "@/lib/runtime/testing/scenario-fixtures";
import { createToken } from "@/lib/server/auth/accounts";
import { getDatabase } from "@/lib/server/database";
import type { RunService } from "@/lib/server/runs/run-service";
import { getAuth } from "@/lib/server/server-context";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

let admin: TestAccount;
let viewer: TestAccount;
let service: RunService;
let route: typeof import("./route");

const setup = setUpRouteTests(["viewer", "admin"]);

beforeAll(async () => {
  ({ admin, viewer } = setup.accounts);
  route = await import("./route");
  service = await setup.runService();
});

interface Scrape {
  families: MetricFamily[];
  text: string;
}

async function scrape(): Promise<Scrape> {
  const response = await route.GET(new Request("http://test/api/metrics", { headers: admin.headers }));
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  return { families: parsePrometheusTextFormat(text), text };
}

/** A counter's or gauge's value for these labels (0 when the series does not exist yet). */
function seriesValue({ families }: Scrape, name: string, labels: Record<string, string> = {}): number {
  const family = families.find((candidate) => candidate.name === name);
  const series = family?.metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
  return Number(series?.value ?? 0);
}

/** A histogram's observation count for these labels, from its `_count` line (the parser drops histogram labels). */
function countOf({ text }: Scrape, name: string, labels: Record<string, string>): number {
  const line = text
    .split("\n")
    .find(
      (candidate) =>
        candidate.startsWith(`${name}_count{`) &&
        Object.entries(labels).every(([key, value]) => candidate.includes(`${key}="${value}"`)),
    );
  return Number(line?.split(" ").at(-1) ?? 0);
}

describe("GET /api/metrics", () => {
  it("is for admins only: no credentials 401, a viewer 403", async () => {
    expect((await route.GET(new Request("http://test/api/metrics"))).status).toBe(401);
    const asViewer = await route.GET(new Request("http://test/api/metrics", { headers: viewer.headers }));
    expect(asViewer.status).toBe(403);
    expect((await asViewer.json()).error.message).toBe(
      `This needs the admin role; ${viewer.email} is viewer.`,
    );
  });

  it("says it is the token that falls short when an admin sends a token made with a lesser role", async () => {
    const { token } = await createToken(await getAuth(), (await getDatabase()).db, {
      email: admin.email,
      name: "admin approver token",
      role: "approver",
    });
    const refused = await route.GET(
      new Request("http://test/api/metrics", { headers: { authorization: `Bearer ${token}` } }),
    );
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.message).toBe(
      `This needs the admin role; the API token sent is limited to the approver role (${admin.email} is admin): use a token made with the admin role.`,
    );
  });

  it("parses as Prometheus text, and its counters move as a scripted run proceeds", async () => {
    const before = await scrape();
    const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario("measured")));
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const waiting = await scrape();
    expect(
      seriesValue(waiting, "playground_runs", { status: "WAITING_FOR_APPROVAL" }),
    ).toBeGreaterThanOrEqual(1);
    expect(seriesValue(waiting, "playground_oldest_wait_seconds")).toBeGreaterThanOrEqual(0);
    expect(seriesValue(waiting, "playground_completions_total", { model: "scripted", kind: "planned" })).toBe(
      seriesValue(before, "playground_completions_total", { model: "scripted", kind: "planned" }) + 1,
    );

    // A stale digest is refused and counted by its code; the real one runs the barrier.
    await expect(
      service.decide(runId, { approve: true, turnDigest: "0".repeat(64), actor: "ops" }),
    ).rejects.toThrow();
    const turnDigest = (await service.loadView(runId))?.pending?.turnDigest ?? "";
    expect((await service.decide(runId, { approve: true, turnDigest, actor: "ops" })).status).toBe(
      "COMPLETED",
    );
    const after = await scrape();

    const grew = (name: string, labels: Record<string, string>) =>
      seriesValue(after, name, labels) - seriesValue(before, name, labels);
    const observed = (name: string, labels: Record<string, string>) =>
      countOf(after, name, labels) - countOf(before, name, labels);
    expect(grew("playground_decisions_total", { outcome: "refused", code: "stale_turn" })).toBe(1);
    expect(grew("playground_decisions_total", { outcome: "executed" })).toBe(1);
    expect(observed("playground_decision_seconds", { outcome: "executed" })).toBe(1);
    expect(grew("playground_tool_calls_total", { tool: "write_file", class: "write", status: "ok" })).toBe(1);
    expect(grew("playground_tool_calls_total", { tool: "read_file", class: "pure_read", status: "ok" })).toBe(
      1,
    );
    expect(observed("playground_tool_call_seconds", { tool: "write_file", status: "ok" })).toBe(1);
    expect(grew("playground_completions_total", { model: "scripted", kind: "planned" })).toBe(2);
    expect(observed("playground_store_write_seconds", { operation: "startCalls" })).toBeGreaterThanOrEqual(2);
    // The run left the waiting runs (finished runs are counted as of the last minute: read-metrics.test.ts).
    expect(seriesValue(after, "playground_runs", { status: "WAITING_FOR_APPROVAL" })).toBe(
      seriesValue(waiting, "playground_runs", { status: "WAITING_FOR_APPROVAL" }) - 1,
    );
  });

  it("counts the runs this instance drives while a step is under way, and none once they stop", async () => {
    const idle = await scrape();
    expect(seriesValue(idle, "playground_runs_driven")).toBe(0);
    const { runId, settled } = await service.startRun(
      buildScenario({
        name: "driven",
        tools: [slowReadTool(60_000)],
        model: { kind: "scripted", turns: [{ calls: [{ name: "slow_scan", arguments: {} }] }] },
      }),
    );
    await expect
      .poll(async () => (await service.readEvents(runId, 0)).some((event) => event.type === "call_started"))
      .toBe(true);
    expect(seriesValue(await scrape(), "playground_runs_driven")).toBe(1);
    await service.cancelRun(runId, "run");
    expect(await settled).toBe("CANCELLED");
    expect(seriesValue(await scrape(), "playground_runs_driven")).toBe(0);
  });

  it("labels only bounded values: no run ids, and a scenario's own tools as custom", async () => {
    const { settled } = await service.startRun(
      buildScenario({
        name: "custom tool",
        tools: [
          {
            name: "my_secret_lookup",
            description: "a custom read",
            resourceClass: "pure_read",
            effect: "READ",
            approval: "never",
          },
        ],
        model: {
          kind: "scripted",
          turns: [
            { calls: [{ name: "my_secret_lookup", arguments: {} }] },
            { calls: [{ name: "finish", arguments: { summary: "done" } }] },
          ],
        },
      }),
    );
    await settled;
    const text = await (
      await route.GET(new Request("http://test/api/metrics", { headers: admin.headers }))
    ).text();
    expect(text).not.toContain("my_secret_lookup");
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    const families = parsePrometheusTextFormat(text);
    expect(
      seriesValue({ families, text }, "playground_tool_calls_total", { tool: "custom" }),
    ).toBeGreaterThan(0);
  });
});
