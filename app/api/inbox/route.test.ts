import { eq, inArray, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/db/client";
import { runs } from "@/db/schema";
import { publishPolicy } from "@/lib/server/policies/policies";
import type { RunService } from "@/lib/server/runs/run-service";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { InboxPage } from "@/lib/wire/inbox-item";

let handle: DatabaseHandle;
let viewer: TestAccount;
let service: RunService;
let route: typeof import("./route");

const setup = setUpRouteTests(["viewer"]);

beforeAll(async () => {
  handle = setup.handle;
  ({ viewer } = setup.accounts);
  route = await import("./route");
  service = await setup.runService();
});

const get = (query: string) =>
  route.GET(new Request(`http://test/api/inbox${query}`, { headers: viewer.headers }));

async function startWaiting(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario(`waiting ${index}`)));
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    ids.push(runId);
  }
  return ids;
}

describe("GET /api/inbox pages", () => {
  it("pages through every waiting run newest first, each once, with the total, even when waits tie or were never timed", async () => {
    const ids = await startWaiting(7);
    // Four of them started waiting at the very same microsecond: the id orders them.
    await handle.db
      .update(runs)
      .set({ waitingSince: new Date("2026-11-30T08:00:00.123Z") })
      .where(inArray(runs.id, ids.slice(0, 4)));
    // Two from before waits were timed: they come first, by id.
    await handle.db
      .update(runs)
      .set({ waitingSince: null })
      .where(inArray(runs.id, ids.slice(5, 7)));
    const seen: string[] = [];
    let query = "?limit=2";
    for (let page = 0; page < 10; page += 1) {
      const response = await get(query);
      expect(response.status).toBe(200);
      const body = (await response.json()) as InboxPage;
      expect(body.total).toBe(7);
      expect(body.items.length).toBeLessThanOrEqual(2);
      seen.push(...body.items.map((item) => item.runId));
      if (!body.nextCursor) break;
      query = `?limit=2&after=${encodeURIComponent(body.nextCursor)}`;
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(new Set(ids));
    const stored = await handle.db
      .select({ id: runs.id, waitingSince: runs.waitingSince })
      .from(runs)
      .where(eq(runs.status, "WAITING_FOR_APPROVAL"));
    const expected = [...stored]
      .sort(
        (a, b) =>
          // Never timed sorts as newest, as Postgres puts NULLs first in descending order.
          (b.waitingSince?.getTime() ?? Number.MAX_SAFE_INTEGER) -
            (a.waitingSince?.getTime() ?? Number.MAX_SAFE_INTEGER) || (a.id < b.id ? 1 : -1),
      )
      .map((row) => row.id);
    expect(seen).toEqual(expected);
  });

  it("shows each run's pending turn, and a first page of 50 by default", async () => {
    const body = (await (await get("")).json()) as InboxPage;
    expect(body.items.length).toBe(Math.min(50, body.total));
    expect(body.items[0]).toMatchObject({ pending: { turnDigest: expect.stringMatching(/^[0-9a-f]{64}$/) } });
  });

  it.each([
    ["?limit=0", "limit: must be at least 1"],
    ["?limit=abc", "limit: must be a number"],
    ["?limit=2.5", "limit: must be a whole number"],
    ["?limit=500", "limit: must be at most 200"],
    ["?after=not-a-cursor", "after: must be the nextCursor"],
    ["?order=sideways", 'order: must be one of "newest", "oldest"'],
    [`?q=${"x".repeat(201)}`, "q: must be at most 200 characters long"],
  ])("refuses %s, naming what is wrong", async (query, message) => {
    const response = await get(query);
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.message).toContain(message);
    expect(error.issues).toEqual([{ path: message.split(":")[0], message: expect.any(String) }]);
  });
});

describe("GET /api/inbox filters and orders", () => {
  async function pageAll(query: string): Promise<InboxPage["items"]> {
    const items: InboxPage["items"] = [];
    let after = "";
    for (let page = 0; page < 50; page += 1) {
      const body = (await (await get(`${query}&limit=3${after}`)).json()) as InboxPage;
      items.push(...body.items);
      if (!body.nextCursor) return items;
      after = `&after=${encodeURIComponent(body.nextCursor)}`;
    }
    throw new Error("paging did not end");
  }

  it("orders by the longest wait first, each run once, when asked", async () => {
    const newest = await pageAll("?order=newest");
    const oldest = await pageAll("?order=oldest");
    expect(oldest.map((item) => item.runId)).toEqual(newest.map((item) => item.runId).reverse());
  });

  it("filters by tool, by part of the name or the start of the id, and by who started the run", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const ada = await service.startRun(buildScenario(gatedWriteScenario(`deploy ${tag}`)), {
      id: "user-ada",
      name: "Ada Lovelace",
    });
    const grace = await service.startRun(buildScenario(gatedWriteScenario(`cleanup ${tag}`)), {
      id: "user-grace",
      name: "Grace Hopper",
    });
    await Promise.all([ada.settled, grace.settled]);

    const byName = (await (await get(`?q=${encodeURIComponent(`deploy ${tag}`)}`)).json()) as InboxPage;
    expect(byName.items.map((item) => item.runId)).toEqual([ada.runId]);
    expect(byName.total).toBe(1);
    expect(byName.items[0]?.startedBy).toBe("Ada Lovelace");

    const byId = (await (await get(`?q=${grace.runId.slice(0, 13)}`)).json()) as InboxPage;
    expect(byId.items.map((item) => item.runId)).toEqual([grace.runId]);

    const byStarter = (await (await get(`?startedBy=hopper&q=${tag}`)).json()) as InboxPage;
    expect(byStarter.items.map((item) => item.runId)).toEqual([grace.runId]);

    const tool = byName.items[0]?.pending?.calls[0]?.name ?? "";
    const byTool = (await (await get(`?tool=${tool}&q=${tag}`)).json()) as InboxPage;
    expect(byTool.total).toBe(2);
    const noSuchTool = (await (await get(`?tool=no_such_tool&q=${tag}`)).json()) as InboxPage;
    expect(noSuchTool).toMatchObject({ items: [], total: 0, nextCursor: null });
  });

  it("takes a search's % and _ literally", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const literal = await service.startRun(buildScenario(gatedWriteScenario(`${tag} 100%_done`)));
    const lookalike = await service.startRun(buildScenario(gatedWriteScenario(`${tag} 100 xdone`)));
    await Promise.all([literal.settled, lookalike.settled]);
    const body = (await (await get(`?q=${encodeURIComponent(`${tag} 100%_`)}`)).json()) as InboxPage;
    expect(body.items.map((item) => item.runId)).toEqual([literal.runId]);
  });
});

describe("GET /api/inbox and policy rules", () => {
  it("names the policy rule that gated a run's barrier, and null where the tool's own declaration did", async () => {
    await publishPolicy(
      handle.db,
      { id: "user-admin", name: "Admin" },
      {
        document: `rules:
  - name: ruled-writes
    when: call.name == "write_file" && call.arguments.path == "ruled.txt"
    effect: require
`,
        mode: "live",
      },
    );
    const [declared] = await startWaiting(1);
    const ruled = await service.startRun(
      buildScenario({
        name: "ruled",
        model: {
          kind: "scripted",
          turns: [{ calls: [{ name: "write_file", arguments: { path: "ruled.txt", content: "R" } }] }],
        },
      }),
    );
    expect(await ruled.settled).toBe("WAITING_FOR_APPROVAL");

    const body = (await (await get("?limit=100")).json()) as InboxPage;
    const ruleOf = (runId: string | undefined) =>
      body.items.find((item) => item.runId === runId)?.barrierRule;
    expect(ruleOf(ruled.runId)).toBe("ruled-writes");
    expect(ruleOf(declared)).toBeNull();
  });

  it("still lists a run whose stored barrier index is not a number, as unreadable", async () => {
    const [corrupt] = await startWaiting(1);
    if (!corrupt) throw new Error("no run");
    await handle.db.execute(
      sql`update runs set state = jsonb_set(state, '{pending,calls,0,batchIndex}', '"x"') where id = ${corrupt}`,
    );
    const response = await get("?limit=100");
    expect(response.status).toBe(200);
    const item = ((await response.json()) as InboxPage).items.find((entry) => entry.runId === corrupt);
    expect(item?.unreadable).toEqual(expect.any(String));
    expect(item?.barrierRule).toBeNull();
  });
});
