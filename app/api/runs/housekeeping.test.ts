import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/db/client";
import { approvals, runChanges, runEvents } from "@/db/schema";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { routeParams, setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// Archive and delete (docs/housekeeping.md): who may, never while the run goes on, and the audit stays.
const setup = setUpRouteTests();
let handle: DatabaseHandle;
let accounts: Record<Role, TestAccount>;
let routes: {
  runs: typeof import("./route");
  run: typeof import("./[id]/route");
  archive: typeof import("./[id]/archive/route");
  decision: typeof import("./[id]/decision/route");
  inbox: typeof import("../inbox/route");
  audit: typeof import("../audit/route");
};

beforeAll(async () => {
  ({ handle, accounts } = setup);
  routes = {
    runs: await import("./route"),
    run: await import("./[id]/route"),
    archive: await import("./[id]/archive/route"),
    decision: await import("./[id]/decision/route"),
    inbox: await import("../inbox/route"),
    audit: await import("../audit/route"),
  };
});

const request = (as: Role, method: string, body?: unknown, query = "") =>
  new Request(`http://test/api${query}`, {
    method,
    headers: { "content-type": "application/json", ...accounts[as].headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const params = routeParams;
const archive = (as: Role, runId: string) => routes.archive.POST(request(as, "POST"), params(runId));
const unarchive = (as: Role, runId: string) => routes.archive.DELETE(request(as, "DELETE"), params(runId));
const remove = (as: Role, runId: string) => routes.run.DELETE(request(as, "DELETE"), params(runId));

/** A run the operator starts, once it waits for the decision on its write. */
async function startWaitingRun(name: string): Promise<{ runId: string; turnDigest: string }> {
  const response = await routes.runs.POST(request("operator", "POST", gatedWriteScenario(name)));
  expect(response.status).toBe(201);
  const { runId } = await response.json();
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const report = await (await routes.run.GET(request("viewer", "GET"), params(runId))).json();
    if (report.status === "WAITING_FOR_APPROVAL") return { runId, turnDigest: report.pending.turnDigest };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("run never waited");
}

/** A run approved to its end: one approval in the audit. */
async function startFinishedRun(name: string): Promise<string> {
  const { runId, turnDigest } = await startWaitingRun(name);
  const approved = await routes.decision.POST(
    request("approver", "POST", { approve: true, turnDigest, reason: "fine" }, "?wait=settled"),
    params(runId),
  );
  expect(await approved.json()).toEqual({ outcome: "executed", status: "COMPLETED" });
  return runId;
}

async function listRunIds(query = "") {
  const body = await (await routes.runs.GET(request("viewer", "GET", undefined, query))).json();
  return body.items.map((item: { id: string }) => item.id);
}

async function changesOf(runId: string) {
  const rows = await handle.db.select().from(runChanges).where(eq(runChanges.runId, runId));
  return rows.map((row) => [row.kind, row.actorName]);
}

describe("archiving a run", () => {
  it("hides it from the runs list and the inbox unless asked, once per change, and unarchives", async () => {
    const { runId } = await startWaitingRun("archived while waiting");
    const first = await archive("operator", runId);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ runId, archived: true, changed: true });
    const again = await archive("operator", runId);
    expect(await again.json()).toMatchObject({ archived: true, changed: false });

    expect(await listRunIds()).not.toContain(runId);
    expect(await listRunIds("?archived=include")).toContain(runId);
    expect(await listRunIds("?archived=only")).toEqual([runId]);
    const inbox = async (query = "") =>
      (await (await routes.inbox.GET(request("viewer", "GET", undefined, query))).json()).items.map(
        (item: { runId: string }) => item.runId,
      );
    expect(await inbox()).not.toContain(runId);
    expect(await inbox("?archived=include")).toContain(runId);

    expect((await unarchive("operator", runId)).status).toBe(200);
    expect(await listRunIds()).toContain(runId);
    expect(await changesOf(runId)).toEqual([
      ["archived", accounts.operator.name],
      ["unarchived", accounts.operator.name],
    ]);
  });

  it("is its starter's or an admin's to do: anyone else gets 403 naming who may, a viewer the role", async () => {
    const { runId } = await startWaitingRun("someone else's");
    const byApprover = await archive("approver", runId);
    expect(byApprover.status).toBe(403);
    expect((await byApprover.json()).error.message).toContain(
      "Only the person who started this run or an admin",
    );
    expect((await archive("viewer", runId)).status).toBe(403);
    expect((await archive("admin", runId)).status).toBe(200);
    expect(await changesOf(runId)).toEqual([["archived", accounts.admin.name]]);
  });

  it("answers 404 for a run that does not exist, and refuses a bad ?archived=", async () => {
    const response = await archive("admin", "00000000-0000-4000-8000-000000000000");
    expect(response.status).toBe(404);
    const bad = await routes.runs.GET(request("viewer", "GET", undefined, "?archived=yes"));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain("archived");
  });
});

describe("deleting a run", () => {
  it("is refused with 409 run_active while the run waits, and leaves everything in place", async () => {
    const { runId } = await startWaitingRun("still waiting");
    const response = await remove("operator", runId);
    expect(response.status).toBe(409);
    expect((await response.json()).error).toMatchObject({
      code: "run_active",
      message: expect.stringContaining("waiting for a decision"),
    });
    expect((await routes.run.GET(request("viewer", "GET"), params(runId))).status).toBe(200);
    expect(await changesOf(runId)).toEqual([]);
  });

  it("removes the run's own data, keeps its decisions in the audit (JSON and CSV) under its name, and is recorded", async () => {
    const runId = await startFinishedRun("to be deleted");
    expect((await remove("approver", runId)).status).toBe(403);

    const response = await remove("operator", runId);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ runId, deleted: true });
    expect((await routes.run.GET(request("viewer", "GET"), params(runId))).status).toBe(404);
    expect(await handle.db.select().from(runEvents).where(eq(runEvents.runId, runId))).toEqual([]);
    expect(await listRunIds("?archived=include")).not.toContain(runId);

    // The approvals audit is untouched, and still says which run it was.
    expect(await handle.db.select().from(approvals).where(eq(approvals.runId, runId))).toHaveLength(1);
    const audit = await (
      await routes.audit.GET(request("viewer", "GET", undefined, "?run=to be deleted"))
    ).json();
    expect(audit.items).toEqual([
      expect.objectContaining({ runId, runName: "to be deleted", runDeleted: true, outcome: "approved" }),
    ]);
    const csv = await (await routes.audit.GET(request("viewer", "GET", undefined, "?format=csv"))).text();
    expect(csv).toContain(`${runId},to be deleted`);
    expect(await changesOf(runId)).toEqual([["deleted", accounts.operator.name]]);

    // A second delete says what became of it.
    const again = await remove("operator", runId);
    expect(again.status).toBe(404);
    expect((await again.json()).error.message).toMatch(/was deleted at .* by operator tester/);
  });

  it("keeps the event log and the record of changes append-only for everything else", async () => {
    const runId = await startFinishedRun("events stay");
    expect((await archive("operator", runId)).status).toBe(200);
    const refusal = (query: Promise<unknown>) =>
      query.then(
        () => "deleted",
        (error: Error) => String((error.cause as Error | undefined)?.message ?? error.message),
      );
    expect(await refusal(handle.db.delete(runEvents).where(eq(runEvents.runId, runId)))).toMatch(
      /run_events is append-only/,
    );
    expect(await handle.db.select().from(runEvents).where(eq(runEvents.runId, runId))).not.toEqual([]);
    expect(await refusal(handle.db.delete(runChanges))).toMatch(/run_changes is append-only/);
    expect(await changesOf(runId)).toEqual([["archived", accounts.operator.name]]);
  });
});
