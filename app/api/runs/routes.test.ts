import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DatabaseHandle } from "@/db/client";
import { runs } from "@/db/schema";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { routeParams, setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// The routes use the process-wide database: hand them a fresh test database.
let handle: DatabaseHandle;
let accounts: Record<Role, TestAccount>;
let routes: {
  runs: typeof import("./route");
  run: typeof import("./[id]/route");
  report: typeof import("./[id]/report/route");
  decision: typeof import("./[id]/decision/route");
  cancel: typeof import("./[id]/cancel/route");
  faults: typeof import("../faults/route");
};

const setup = setUpRouteTests();

beforeAll(async () => {
  vi.stubEnv("PLAYGROUND_FAULTS", "1");
  handle = setup.handle;
  accounts = setup.accounts;
  routes = {
    runs: await import("./route"),
    run: await import("./[id]/route"),
    report: await import("./[id]/report/route"),
    decision: await import("./[id]/decision/route"),
    cancel: await import("./[id]/cancel/route"),
    faults: await import("../faults/route"),
  };
});
afterAll(async () => {
  vi.unstubAllEnvs();
});

const post = (body: unknown, query = "") =>
  new Request(`http://test/api${query}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...accounts.admin.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const get = () => new Request("http://test", { headers: accounts.admin.headers });
const params = routeParams;

const gatedWrite = gatedWriteScenario("gated write over HTTP");

async function startWaitingRun(): Promise<{ runId: string; turnDigest: string }> {
  const response = await routes.runs.POST(post(gatedWrite));
  expect(response.status).toBe(201);
  const { runId } = await response.json();
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const report = await (await routes.run.GET(get(), params(runId))).json();
    if (report.status === "WAITING_FOR_APPROVAL") return { runId, turnDigest: report.pending.turnDigest };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("run never waited");
}

describe("HTTP API error mapping", () => {
  it("POST /api/runs refuses an invalid scenario with 400 naming each path", async () => {
    const response = await routes.runs.POST(
      post({ name: "x", model: { kind: "scripted", turns: [{ calls: [{}] }] } }),
    );
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.pending).toBeNull();
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.issues.map((issue: { path: string }) => issue.path)).toContain(
      "model.turns[0].calls[0].name",
    );
    expect((await routes.runs.POST(post("{nope"))).status).toBe(400);
  });

  it("POST /api/runs answers a body wrong in 100,000 places with a small 400: the first issues and how many more", async () => {
    const workspace = Object.fromEntries(Array.from({ length: 100_000 }, (_, index) => [`f${index}`, index]));
    const response = await routes.runs.POST(post({ ...gatedWrite, workspace }));
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text.length).toBeLessThan(4_000);
    const { error } = JSON.parse(text);
    expect(error.issues).toHaveLength(21);
    expect(error.issues[0]).toEqual({ path: "workspace.f0", message: "must be text (a JSON string)" });
    expect(error.issues[20]).toEqual({ path: "", message: "… and 99,980 more issues" });
    expect(error.message).toMatch(
      /^Invalid request: workspace\.f0: must be text \(a JSON string\); .*; … and 99,980 more issues$/,
    );
  });

  it("GET an unknown or malformed run id answers 404 not_found", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const response = await routes.run.GET(get(), params(id));
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        error: { code: "not_found", message: expect.any(String) },
        pending: null,
      });
    }
  });

  it("maps every decision outcome to its status and body", async () => {
    const { runId, turnDigest } = await startWaitingRun();
    const decide = (body: unknown) => routes.decision.POST(post(body), params(runId));

    const invalid = await decide({ approve: "yes", actor: "" });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).error.message).toMatch(/approve.*actor|actor.*approve/s);

    const stale = await decide({ approve: true, turnDigest: "0".repeat(64) });
    expect(stale.status).toBe(409);
    const staleBody = await stale.json();
    expect(staleBody.error.code).toBe("stale_turn");
    expect(staleBody.pending).toEqual({
      turnDigest,
      calls: [
        expect.objectContaining({ name: "write_file" }),
        expect.objectContaining({ name: "read_file" }),
      ],
      gates: [0],
    });

    const missing = await decide({ approve: false });
    expect(missing.status).toBe(409);
    expect((await missing.json()).error.code).toBe("stale_turn");

    await routes.faults.POST(post({ target: "approvals", failNext: 1 }));
    const unaudited = await decide({ approve: true, turnDigest });
    expect(unaudited.status).toBe(503);
    const unauditedBody = await unaudited.json();
    expect(unauditedBody.error.code).toBe("not_auditable");
    expect(unauditedBody.pending.turnDigest).toBe(turnDigest);
    expect(await (await routes.faults.GET(get())).json()).toEqual({
      approvals: 0,
      steps: 0,
    });
    const stillWaiting = await (await routes.report.GET(get(), params(runId))).json();
    expect(stillWaiting.status).toBe("WAITING_FOR_APPROVAL");
    expect(stillWaiting.steps[0].calls[0]).toMatchObject({ status: "pending", startSeq: null });

    const badWait = await routes.decision.POST(
      post({ approve: true, turnDigest }, "?wait=forever"),
      params(runId),
    );
    expect(badWait.status).toBe(400);
    expect((await badWait.json()).error.issues).toEqual([
      { path: "wait", message: expect.stringMatching(/^must be "settled" .*; got "forever"$/) },
    ]);

    const approved = await routes.decision.POST(
      post({ approve: true, turnDigest, reason: "fine" }, "?wait=settled"),
      params(runId),
    );
    expect(approved.status).toBe(200);
    expect(await approved.json()).toEqual({ outcome: "executed", status: "COMPLETED" });

    const again = await decide({ approve: true, turnDigest });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: {
        code: "not_waiting",
        message: `Run ${runId} has ended (COMPLETED): it is not waiting for a decision.`,
      },
      pending: null,
    });

    const cancelFinished = await routes.cancel.POST(post({ scope: "run" }), params(runId));
    expect(cancelFinished.status).toBe(409);
    expect((await routes.cancel.POST(post({ scope: "step" }), params(runId))).status).toBe(400);
  });

  it("answers a decision once it has taken effect, while the run goes on", async () => {
    const { runId, turnDigest } = await startWaitingRun();
    const response = await routes.decision.POST(post({ approve: true, turnDigest }), params(runId));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ outcome: "executed", status: "RUNNING" });
    // Taken effect means audited and announced: the run no longer waits, whatever it does next.
    const report = await (await routes.report.GET(get(), params(runId))).json();
    expect(report.decisions).toHaveLength(1);
    expect(report.status).not.toBe("WAITING_FOR_APPROVAL");
  });

  it("answers 422 unreadable_state for a waiting run whose state cannot be decoded, leaving it untouched", async () => {
    const { runId, turnDigest } = await startWaitingRun();
    await handle.db
      .update(runs)
      .set({ state: { schemaVersion: 99 } })
      .where(eq(runs.id, runId));
    const response = await routes.decision.POST(post({ approve: true, turnDigest }), params(runId));
    expect(response.status).toBe(422);
    expect((await response.json()).error.code).toBe("unreadable_state");
    const [row] = await handle.db.select().from(runs).where(eq(runs.id, runId));
    expect(row).toMatchObject({
      status: "WAITING_FOR_APPROVAL",
      state: { schemaVersion: 99 },
      claimToken: null,
    });
  });

  it("cancels a waiting run over HTTP", async () => {
    const { runId } = await startWaitingRun();
    const response = await routes.cancel.POST(post({ scope: "run" }), params(runId));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "CANCELLED" });
  });

  it("validates fault requests", async () => {
    const response = await routes.faults.POST(post({ target: "everything", failNext: 1 }));
    expect(response.status).toBe(400);
    expect((await response.json()).error.issues[0].path).toBe("target");
  });
});
