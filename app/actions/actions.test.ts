import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunService } from "@/lib/server/runs/run-service";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// Actions read the request's headers; outside Next there is no request, so the test says what a browser sends:
// its origin, and who it is signed in as (an approver's token, unless a test says otherwise).
const requestHeaders = vi.hoisted(() => ({ current: new Headers({ origin: "http://test" }) }));
vi.mock("next/headers", () => ({ headers: async () => requestHeaders.current }));

// The actions use the process-wide database: hand them a fresh test database.
let service: RunService;
let accounts: Record<Role, TestAccount>;
const actAs = (role: Role | null, extra: Record<string, string> = { origin: "http://test" }) => {
  requestHeaders.current = new Headers({ ...extra, ...(role ? accounts[role].headers : {}) });
};
let actions: {
  start: typeof import("./start-run");
  decide: typeof import("./decide-turn");
  cancel: typeof import("./cancel-run");
};

const setup = setUpRouteTests();

beforeAll(async () => {
  vi.stubEnv("PLAYGROUND_FAULTS", "1");
  accounts = setup.accounts;
  actAs("approver");
  actions = {
    start: await import("./start-run"),
    decide: await import("./decide-turn"),
    cancel: await import("./cancel-run"),
  };
  service = await setup.runService();
});
afterAll(async () => {
  vi.unstubAllEnvs();
});

const gatedWrite = JSON.stringify(gatedWriteScenario("gated write from the playground"));

async function poll<T>(read: () => Promise<T | null>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const value = await read();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const waitForPending = (runId: string) =>
  poll(async () => (await service.loadView(runId))?.pending?.turnDigest ?? null, "the run to wait");

const waitForStatus = (runId: string, status: string) =>
  poll(async () => ((await service.loadView(runId))?.status === status ? true : null), status);

const approve = (runId: string, turnDigest: string) =>
  actions.decide.decideTurnAction({ runId, approve: true, turnDigest });

async function startWaitingRun(scenarioText = gatedWrite) {
  const started = await actions.start.startRunAction({ scenarioText });
  if (!started.ok) throw new Error(started.error.message);
  const { runId } = started.data;
  return { runId, turnDigest: await waitForPending(runId) };
}

describe("server actions return the error table's codes and statuses, never throw", () => {
  it("startRunAction refuses bad JSON and an invalid scenario, naming each path", async () => {
    const notJson = await actions.start.startRunAction({ scenarioText: "{ nope" });
    expect(notJson).toMatchObject({ ok: false, error: { code: "invalid_request", status: 400 } });

    const invalid = await actions.start.startRunAction({
      scenarioText: JSON.stringify({ name: "x", model: { kind: "scripted", turns: [{ calls: [{}] }] } }),
    });
    expect(invalid.ok).toBe(false);
    if (invalid.ok) return;
    expect(invalid.error.issues?.map((issue) => issue.path)).toContain("model.turns[0].calls[0].name");

    const wrongShape = await actions.start.startRunAction({ scenarioText: 42 } as never);
    expect(wrongShape).toMatchObject({ ok: false, error: { code: "invalid_request", status: 400 } });
  });

  it("decideTurnAction: 409 stale_turn with the current turn, then 200 executed, then 409 not_waiting", async () => {
    const { runId, turnDigest } = await startWaitingRun();
    const stale = await actions.decide.decideTurnAction({
      runId,
      approve: true,
      turnDigest: "0".repeat(64),
    });
    expect(stale).toMatchObject({
      ok: false,
      error: { code: "stale_turn", status: 409 },
      pending: { turnDigest, calls: [{ name: "write_file" }, { name: "read_file" }] },
    });

    const approved = await approve(runId, turnDigest);
    expect(approved).toEqual({ ok: true, data: { outcome: "executed", status: "RUNNING" } });
    await waitForStatus(runId, "COMPLETED");

    const again = await actions.decide.decideTurnAction({ runId, approve: true, turnDigest });
    expect(again).toMatchObject({ ok: false, error: { code: "not_waiting", status: 409 }, pending: null });
  });

  it("decideTurnAction: 503 not_auditable while approvals cannot be recorded; nothing runs and the run still waits", async () => {
    const { runId, turnDigest } = await startWaitingRun();
    const waitedSince = (await service.listInbox()).items.find((item) => item.runId === runId)?.waitingSince;
    const { getRunServiceContext } = await import("@/lib/server/server-context");
    (await getRunServiceContext()).faults?.arm("approvals", 1);
    const refused = await actions.decide.decideTurnAction({
      runId,
      approve: true,
      turnDigest,
    });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: "not_auditable", status: 503 },
      pending: { turnDigest },
    });
    const view = await service.loadView(runId);
    expect(view?.status).toBe("WAITING_FOR_APPROVAL");
    // A refused decision does not restart the wait.
    expect((await service.listInbox()).items.find((item) => item.runId === runId)?.waitingSince).toBe(
      waitedSince,
    );
    expect(view?.steps[0]?.calls.map((call) => call.status)).toEqual(["pending", "pending"]);
  });

  it("decideTurnAction and cancelRunAction refuse bad input with 400 and an unknown run with 404", async () => {
    const bad = await actions.decide.decideTurnAction({ runId: "x", approve: true, actor: "" } as never);
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid_request", status: 400 } });
    expect(bad.ok || bad.error.issues?.map((issue) => issue.path).sort()).toEqual(["actor", "runId"]);

    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await actions.cancel.cancelRunAction({ runId: unknown, scope: "run" })).toMatchObject({
      ok: false,
      error: { code: "not_found", status: 404 },
    });
  });

  it("cancelRunAction cancels a waiting run", async () => {
    const { runId } = await startWaitingRun();
    expect(await actions.cancel.cancelRunAction({ runId, scope: "run" })).toEqual({
      ok: true,
      data: { status: "RUNNING" },
    });
    await waitForStatus(runId, "CANCELLED");
  });

  it("decideTurnAction answers once the decision took effect, not when the run next stops", async () => {
    // A tab runs its server actions one at a time: an action that waited for this
    // slow tool would hold up the tab's Cancel buttons for its whole duration.
    const slowAfterApproval = JSON.stringify({
      name: "slow work after the barrier",
      tools: [
        {
          name: "slow_report",
          description: "takes a while",
          resourceClass: "pure_read",
          effect: "READ",
          approval: "never",
          parameters: { type: "object", properties: {} },
          result: { done: true },
          delayMs: 3_000,
        },
      ],
      model: {
        kind: "scripted",
        turns: [
          { calls: [{ name: "write_file", arguments: { path: "a.txt", content: "A" } }] },
          { calls: [{ name: "slow_report", arguments: {} }] },
          { calls: [{ name: "finish", arguments: { summary: "ok" } }] },
        ],
      },
    });
    const { runId, turnDigest } = await startWaitingRun(slowAfterApproval);
    const approved = await approve(runId, turnDigest);
    expect(approved).toEqual({ ok: true, data: { outcome: "executed", status: "RUNNING" } });
    expect((await service.loadView(runId))?.status).toBe("RUNNING");
    // The tab can cancel while the slow tool runs.
    expect(await actions.cancel.cancelRunAction({ runId, scope: "run" })).toMatchObject({ ok: true });
    await waitForStatus(runId, "CANCELLED");
  });
});

describe("server actions hold the same boundary as the HTTP API", () => {
  it("refuses a call without an Origin (no browser page of this app sends one) with 403", async () => {
    actAs("approver", {});
    try {
      expect(await actions.start.startRunAction({ scenarioText: gatedWrite })).toMatchObject({
        ok: false,
        error: { code: "forbidden", status: 403 },
      });
      expect(
        await actions.decide.decideTurnAction({ runId: crypto.randomUUID(), approve: true }),
      ).toMatchObject({
        ok: false,
        error: { code: "forbidden", status: 403 },
      });
    } finally {
      actAs("approver");
    }
  });

  it("answers 413 over the one 2 MiB body limit, and accepts a scenario just under it", async () => {
    const scenario = JSON.parse(gatedWrite);
    const padded = (bytes: number) =>
      JSON.stringify({ ...scenario, workspace: { ...scenario.workspace, "pad.txt": "x".repeat(bytes) } });
    expect(await actions.start.startRunAction({ scenarioText: padded(2 * 1024 * 1024) })).toMatchObject({
      ok: false,
      error: { code: "payload_too_large", status: 413 },
    });
    expect(await actions.start.startRunAction({ scenarioText: padded(1_900_000) })).toMatchObject({
      ok: true,
    });
  });

  it("refuses NUL and unpaired surrogates with 400 naming where they are", async () => {
    const scenario = JSON.parse(gatedWrite);
    const withNul = await actions.start.startRunAction({
      scenarioText: JSON.stringify({ ...scenario, name: "a\u0000" }),
    });
    expect(withNul).toMatchObject({ ok: false, error: { code: "invalid_request", status: 400 } });
    expect(withNul.ok ? [] : withNul.error.issues).toEqual([
      { path: "name", message: expect.stringMatching(/NUL/) },
    ]);
    const reason = await actions.decide.decideTurnAction({
      runId: crypto.randomUUID(),
      approve: false,
      reason: "half \ud800",
    });
    expect(reason).toMatchObject({
      ok: false,
      error: { code: "invalid_request", issues: [{ path: "reason" }] },
    });
  });
});

describe("server actions act as the signed-in person, with their role", () => {
  it("refuses a caller who is not signed in with 401, and a role too low with 403 naming the role needed", async () => {
    try {
      actAs(null);
      expect(await actions.start.startRunAction({ scenarioText: gatedWrite })).toMatchObject({
        ok: false,
        error: { code: "unauthenticated", status: 401 },
      });
      actAs("viewer");
      const viewerStart = await actions.start.startRunAction({ scenarioText: gatedWrite });
      expect(viewerStart).toMatchObject({ ok: false, error: { code: "forbidden", status: 403 } });
      expect(viewerStart.ok ? "" : viewerStart.error.message).toMatch(/needs the operator role/);
    } finally {
      actAs("approver");
    }
    const { runId, turnDigest } = await startWaitingRun();
    try {
      for (const role of ["viewer", "operator"] as const) {
        actAs(role);
        const refused = await approve(runId, turnDigest);
        expect(refused).toMatchObject({ ok: false, error: { code: "forbidden", status: 403 } });
        expect(refused.ok ? "" : refused.error.message).toMatch(/needs the approver role/);
      }
    } finally {
      actAs("approver");
    }
    expect((await service.loadView(runId))?.status).toBe("WAITING_FOR_APPROVAL");
  });

  it("records the authenticated approver in the audit, never a name from the request", async () => {
    const { runId, turnDigest } = await startWaitingRun();
    const forged = await actions.decide.decideTurnAction({
      runId,
      approve: true,
      turnDigest,
      actor: "ceo@company (forged)",
    } as never);
    expect(forged).toMatchObject({
      ok: false,
      error: { code: "invalid_request", issues: [{ path: "actor" }] },
    });
    expect(await approve(runId, turnDigest)).toMatchObject({ ok: true });
    // The approved run goes on after the action answers: let it finish before the database closes.
    await waitForStatus(runId, "COMPLETED");
    const report = await service.getReport(runId);
    expect(report?.decisions).toMatchObject([
      { actor: accounts.approver.name, actorId: accounts.approver.userId, approve: true },
    ]);
    expect(report?.startedBy).toEqual({ id: accounts.approver.userId, name: accounts.approver.name });
  });
});
