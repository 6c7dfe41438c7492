import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { createNotificationOutbox } from "@/db/repositories/notification-outbox";
import { readNotificationChannels } from "@/lib/server/config/notification-channels";
import type { EscalationEntry } from "@/lib/server/lists/list-escalations";
import { createNotifier } from "@/lib/server/notifications/notifier";
import type { RunService } from "@/lib/server/runs/run-service";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";

// docs/notifications.md#escalation: the fired steps are on /audit and, for a script or a
// spreadsheet, at GET /api/audit/escalations as JSON or CSV.
const setup = setUpRouteTests(["viewer", "admin"]);
let service: RunService;
let route: typeof import("./route");

beforeAll(async () => {
  route = await import("./route");
  service = await setup.runService();
});

const get = (query: string, headers: HeadersInit = setup.accounts.viewer.headers) =>
  route.GET(new Request(`http://test/api/audit/escalations${query}`, { headers }));

/** A run that waits, and whose wait escalated once on a clock moved past the step's ten minutes. */
async function escalatedRun(name: string): Promise<string> {
  const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario(name)));
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  const waiting = (await service.readEvents(runId, 0)).filter((event) => event.type === "awaiting_approval");
  let now = Date.parse(waiting.at(-1)?.at ?? "");
  const notifier = createNotifier({
    outbox: createNotificationOutbox(setup.handle.db),
    appUrl: "https://playground.example",
    env: { HOOK_SECRET: "a-test-signing-secret" },
    now: () => new Date(now),
    fetch: async () => new Response(null, { status: 200 }),
    channels: readNotificationChannels({
      PLAYGROUND_NOTIFICATIONS: JSON.stringify({
        ops: {
          kind: "webhook",
          url: "https://hooks.example/ops",
          secretEnv: "HOOK_SECRET",
          to: { roles: ["viewer"] },
          escalation: [
            { afterMinutes: 10, to: { roles: ["admin"] } },
            { afterMinutes: 30, to: { users: [setup.accounts.admin.email] } },
          ],
        },
      }),
    }),
  });
  try {
    await notifier.sweep();
    now += 10 * 60_000;
    await notifier.sweep();
  } finally {
    notifier.close();
  }
  return runId;
}

describe("GET /api/audit/escalations", () => {
  it("lists the fired steps with when, run, channel, step and the group told; narrows by run; CSV reads as text", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const runId = await escalatedRun(`=${tag} escalated`);

    const response = await get(`?run=${tag}`);
    expect(response.status).toBe(200);
    const { items } = (await response.json()) as { items: EscalationEntry[] };
    expect(items).toEqual([
      expect.objectContaining({
        runId,
        runName: `=${tag} escalated`,
        channel: "ops",
        step: 1,
        steps: 2,
        afterMinutes: 10,
        to: { users: [], roles: ["admin"] },
        turnDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
        firedAt: expect.any(String),
      }),
    ]);
    // By the start of its id as well as by part of its name; another run's filter finds nothing.
    expect(
      ((await (await get(`?run=${runId.slice(0, 8)}`)).json()) as { items: unknown[] }).items,
    ).toHaveLength(1);
    expect(((await (await get(`?run=${tag}-other`)).json()) as { items: unknown[] }).items).toEqual([]);

    const csv = await get(`?run=${tag}&format=csv`);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="escalations-.*\.csv"$/);
    const rows = parse(await csv.text(), { columns: true }) as Array<Record<string, string>>;
    expect(rows).toEqual([
      expect.objectContaining({
        runId,
        // A name that starts like a formula is text in a spreadsheet.
        runName: `'=${tag} escalated`,
        channel: "ops",
        step: "1",
        steps: "2",
        afterMinutes: "10",
        toUsers: "",
        toRoles: "admin",
      }),
    ]);
  });

  it("is for the signed in, and names a parameter it cannot read", async () => {
    expect((await get("", {})).status).toBe(401);
    const refused = await get("?limit=0");
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain("limit");
    expect((await get("?format=xml")).status).toBe(400);
  });
});
