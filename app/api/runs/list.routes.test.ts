import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { RUN_COUNT_LIMIT, type RunListPage } from "@/lib/server/lists/list-runs";
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

const list = async (query: string) => {
  const response = await route.GET(new Request(`http://test/api/runs${query}`, { headers: viewer.headers }));
  return { status: response.status, body: await response.json() };
};

const finishing = (name: string) =>
  buildScenario({
    name,
    model: { kind: "scripted", turns: [{ calls: [{ name: "finish", arguments: { summary: "done" } }] }] },
  });

describe("GET /api/runs lists every run", () => {
  it("pages newest first, each run once, with its status, starter, steps and completions", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const started: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const { runId, settled } = await service.startRun(finishing(`${tag} finished ${index}`), {
        id: "user-ada",
        name: "Ada",
      });
      await settled;
      started.push(runId);
    }
    const seen: RunListPage["items"] = [];
    let after = "";
    for (let page = 0; page < 10; page += 1) {
      const { status, body } = await list(`?q=${tag}&limit=2${after}`);
      expect(status).toBe(200);
      expect(body as RunListPage).toMatchObject({ total: 5, totalCapped: false });
      seen.push(...(body as RunListPage).items);
      if (!body.nextCursor) break;
      after = `&after=${encodeURIComponent(body.nextCursor)}`;
    }
    expect(seen.map((run) => run.id)).toEqual([...started].reverse());
    expect(seen[0]).toMatchObject({
      name: `${tag} finished 4`,
      status: "COMPLETED",
      startedBy: "Ada",
      steps: 1,
      completions: 1,
      finishedAt: expect.any(String),
    });
  });

  it("filters by status and finds a run by its starter's name or the start of its id", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const waiting = await service.startRun(buildScenario(gatedWriteScenario(`${tag} waits`)), {
      id: "user-grace",
      name: "Grace Hopper",
    });
    const done = await service.startRun(finishing(`${tag} done`));
    await Promise.all([waiting.settled, done.settled]);

    const onlyWaiting = (await list(`?q=${tag}&status=WAITING_FOR_APPROVAL`)).body as RunListPage;
    expect(onlyWaiting.items.map((run) => run.id)).toEqual([waiting.runId]);
    expect(onlyWaiting.items[0]).toMatchObject({ startedBy: "Grace Hopper", steps: 1, completions: 1 });

    const byStarter = (await list("?q=grace%20hop")).body as RunListPage;
    expect(byStarter.items.map((run) => run.id)).toContain(waiting.runId);
    expect(byStarter.items.every((run) => run.startedBy === "Grace Hopper")).toBe(true);

    const byId = (await list(`?q=${done.runId.slice(0, 8)}`)).body as RunListPage;
    expect(byId.items.map((run) => run.id)).toEqual([done.runId]);
  });

  it.each([
    ["?status=DONE", "status: must be one of"],
    ["?limit=1000", "limit: must be at most 200"],
    ["?after=bm9wZQ", "after: must be the nextCursor"],
    ["?q=%00", "q: "],
  ])("refuses %s with a 400 naming it", async (query, message) => {
    const { status, body } = await list(query);
    expect(status).toBe(400);
    expect(body.error.message).toContain(message);
    expect(body.error.issues).toEqual([{ path: message.split(":")[0], message: expect.any(String) }]);
  });
});

describe("GET /api/runs on a long history", () => {
  it("counts up to 10,000 and says more match, while the page and its cursor go on", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    // Written straight to the table, a day apart, older than any run the other tests start.
    await setup.handle.db.execute(sql`
      insert into runs (id, name, status, scenario, limits, created_at, finished_at)
      select gen_random_uuid(), ${`${tag} old `} || n, 'COMPLETED', '{}', '{}',
             now() - make_interval(days => 1000 + n), now() - make_interval(days => 1000 + n)
      from generate_series(1, ${RUN_COUNT_LIMIT + 2}::int) as n`);
    const first = (await list(`?q=${tag}&limit=1`)).body as RunListPage;
    expect(first).toMatchObject({ total: RUN_COUNT_LIMIT, totalCapped: true });
    expect(first.items.map((run) => run.name)).toEqual([`${tag} old 1`]);
    const second = (await list(`?q=${tag}&limit=1&after=${encodeURIComponent(first.nextCursor ?? "")}`))
      .body as RunListPage;
    expect(second.items.map((run) => run.name)).toEqual([`${tag} old 2`]);
    // Exactly the limit is a count, not "more than".
    await setup.handle.db.execute(sql`delete from runs where name in (${`${tag} old 1`}, ${`${tag} old 2`})`);
    expect((await list(`?q=${tag}&limit=1`)).body).toMatchObject({
      total: RUN_COUNT_LIMIT,
      totalCapped: false,
    });
  });
});
