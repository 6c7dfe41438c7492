import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import type { AuditPage } from "@/lib/server/lists/list-audit";
import type { RunService } from "@/lib/server/runs/run-service";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

let viewer: TestAccount;
let service: RunService;
let route: typeof import("./route");

const setup = setUpRouteTests(["viewer"]);

beforeAll(async () => {
  ({ viewer } = setup.accounts);
  route = await import("./route");
  service = await setup.runService();
});

const get = (query: string) =>
  route.GET(new Request(`http://test/api/audit${query}`, { headers: viewer.headers }));

/** A run that waits at its gated write, decided by `actor`. */
async function decidedRun(name: string, decision: { approve: boolean; actor: string; reason?: string }) {
  const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario(name)));
  await settled;
  const turnDigest = (await service.loadView(runId))?.pending?.turnDigest ?? "";
  await service.decide(runId, { ...decision, turnDigest });
  return runId;
}

describe("GET /api/audit lists every decision from the append-only table", () => {
  it("lists decisions newest first with who, when, run, gate, digest, outcome and reason; filters and pages", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const approved = await decidedRun(`${tag} approved`, { approve: true, actor: "alice" });
    const denied = await decidedRun(`${tag} denied`, { approve: false, actor: "bob", reason: "not today" });

    const page = (await (await get(`?run=${tag}`)).json()) as AuditPage;
    expect(page.items.map((row) => row.runId)).toEqual([denied, approved]);
    expect(page.items[0]).toMatchObject({
      runName: `${tag} denied`,
      outcome: "denied",
      actor: "bob",
      reason: "not today",
      batchIndex: 0,
      toolName: "write_file",
      turnDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      decidedAt: expect.any(String),
    });

    const onlyApproved = (await (await get(`?run=${tag}&outcome=approved`)).json()) as AuditPage;
    expect(onlyApproved.items.map((row) => row.actor)).toEqual(["alice"]);
    const byActor = (await (await get(`?run=${tag}&actor=BO`)).json()) as AuditPage;
    expect(byActor.items.map((row) => row.runId)).toEqual([denied]);

    const first = (await (await get(`?run=${tag}&limit=1`)).json()) as AuditPage;
    expect(first.items.map((row) => row.runId)).toEqual([denied]);
    const second = (await (await get(`?run=${tag}&limit=1&before=${first.nextBefore}`)).json()) as AuditPage;
    expect(second.items.map((row) => row.runId)).toEqual([approved]);
    expect(second.nextBefore).toBeNull();
  });

  it("exports the matching rows as CSV that a spreadsheet reads as text, never as formulas", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const runId = await decidedRun(`${tag} csv`, {
      approve: false,
      actor: "mallory",
      reason: '=HYPERLINK("http://evil.example","click"), with "quotes"\nand a second line',
    });
    const response = await get(`?run=${tag}&format=csv`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-.*\.csv"$/);
    const rows = parse(await response.text(), { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      runId,
      outcome: "denied",
      actor: "mallory",
      toolName: "write_file",
      reason: `'=HYPERLINK("http://evil.example","click"), with "quotes"\nand a second line`,
    });
  });

  it.each([
    ["?outcome=maybe", "outcome: must be one of"],
    ["?before=-3", "before: must be more than 0"],
    ["?format=xml", 'format: must be one of "json", "csv"'],
    ["?actor=a%00b", "actor: "],
  ])("refuses %s with a 400 naming it", async (query, message) => {
    const response = await get(query);
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain(message);
  });
});
