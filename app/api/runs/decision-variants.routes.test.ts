import { beforeAll, describe, expect, it } from "vitest";
import { routeParams, setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// Every decision variant over HTTP, on the process-wide database.
let accounts: Record<Role, TestAccount>;
let routes: {
  runs: typeof import("./route");
  run: typeof import("./[id]/route");
  decision: typeof import("./[id]/decision/route");
  allowance: typeof import("./[id]/allowances/[tool]/route");
};

const setup = setUpRouteTests();

beforeAll(async () => {
  accounts = setup.accounts;
  routes = {
    runs: await import("./route"),
    run: await import("./[id]/route"),
    decision: await import("./[id]/decision/route"),
    allowance: await import("./[id]/allowances/[tool]/route"),
  };
});

const request = (method: string, body?: unknown, query = "") =>
  new Request(`http://test/api${query}`, {
    method,
    headers: { "content-type": "application/json", ...accounts.admin.headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const params = routeParams;

const deploy = {
  name: "deploy",
  description: "Deploy",
  resourceClass: "write",
  effect: "NON_IDEMPOTENT_WRITE",
  approval: "always",
  parameters: { type: "object", properties: { version: { type: "integer" } }, required: ["version"] },
};
const finish = { calls: [{ name: "finish", arguments: { summary: "ok" } }] };

async function report(runId: string) {
  return (await routes.run.GET(request("GET"), params(runId))).json();
}

async function startWaiting(
  scenario: unknown,
): Promise<{ runId: string; pending: { turnDigest: string; gates: number[] } }> {
  const response = await routes.runs.POST(request("POST", scenario));
  expect(response.status).toBe(201);
  const { runId } = await response.json();
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const body = await report(runId);
    if (body.status === "WAITING_FOR_APPROVAL") return { runId, pending: body.pending };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("run never waited");
}

const decide = (runId: string, body: unknown) =>
  routes.decision.POST(request("POST", body, "?wait=settled"), params(runId));

describe("decision variants over HTTP", () => {
  it("edits the barrier's arguments: 400 naming the field when the schema refuses them, then runs the edit", async () => {
    const { runId, pending } = await startWaiting({
      name: "edit over HTTP",
      tools: [deploy],
      model: {
        kind: "scripted",
        turns: [{ calls: [{ name: "deploy", arguments: { version: 1 } }] }, finish],
      },
    });
    const refused = await decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      editedArguments: { version: "two" },
    });
    expect(refused.status).toBe(400);
    const body = await refused.json();
    // Each of the schema's refusals is an issue of editedArguments, in the words every other 400 uses.
    expect(body.error).toEqual({
      code: "invalid_request",
      message: "editedArguments: version: must be a whole number",
      issues: [{ path: "editedArguments", message: "version: must be a whole number" }],
    });
    expect(body.pending.turnDigest).toBe(pending.turnDigest);

    const approved = await decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      editedArguments: { version: 2 },
    });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toEqual({ outcome: "executed", status: "COMPLETED" });
    const done = await report(runId);
    expect(done.steps[0].calls[0]).toMatchObject({
      arguments: '{"version":1}',
      editedArguments: '{"version":2}',
    });
    expect(done.decisions).toMatchObject([{ editedArguments: '{"version":2}', actor: accounts.admin.name }]);
  });

  it("approves every gate of the turn with one decision", async () => {
    const { runId, pending } = await startWaiting({
      name: "approve all over HTTP",
      tools: [deploy],
      model: {
        kind: "scripted",
        turns: [
          {
            calls: [
              { name: "deploy", arguments: { version: 1 } },
              { name: "deploy", arguments: { version: 2 } },
            ],
          },
          finish,
        ],
      },
    });
    expect(pending.gates).toEqual([0, 1]);
    const approved = await decide(runId, { approve: true, turnDigest: pending.turnDigest, scope: "turn" });
    expect(await approved.json()).toEqual({ outcome: "executed", status: "COMPLETED" });
    const done = await report(runId);
    expect(
      done.decisions.map((row: { batchIndex: number; scope: string }) => [row.batchIndex, row.scope]),
    ).toEqual([
      [0, "turn"],
      [1, "turn"],
    ]);
  });

  it("grants the tool for the run, and DELETE /allowances/<tool> revokes it (404 when there is none)", async () => {
    const { runId, pending } = await startWaiting({
      name: "always allow over HTTP",
      tools: [deploy],
      model: {
        kind: "scripted",
        turns: [
          { calls: [{ name: "deploy", arguments: { version: 1 } }] },
          { calls: [{ name: "write_file", arguments: { path: "a.txt", content: "a" } }] },
          { calls: [{ name: "deploy", arguments: { version: 2 } }] },
          finish,
        ],
      },
    });
    const granted = await decide(runId, { approve: true, turnDigest: pending.turnDigest, alwaysAllow: true });
    expect((await granted.json()).status).toBe("WAITING_FOR_APPROVAL");
    const revoke = () =>
      routes.allowance.DELETE(request("DELETE"), { params: Promise.resolve({ id: runId, tool: "deploy" }) });
    const revoked = await revoke();
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({ revoked: "deploy" });
    expect((await revoke()).status).toBe(404);
    const notATool = await routes.allowance.DELETE(request("DELETE"), {
      params: Promise.resolve({ id: runId, tool: "no such/tool" }),
    });
    expect(notATool.status).toBe(400);
    expect((await notATool.json()).error.issues).toEqual([
      { path: "tool", message: `must be a tool name (letters, digits, '_' or '-'); got "no such/tool"` },
    ]);
    const writing = await report(runId);
    const next = await decide(runId, { approve: true, turnDigest: writing.pending.turnDigest });
    // With the grant revoked, deploy 2 waits for its own decision.
    expect((await next.json()).status).toBe("WAITING_FOR_APPROVAL");
    expect((await report(runId)).pending.calls[0].name).toBe("deploy");
  });

  it("refuses a denial that carries an approval's variant, naming the field", async () => {
    const { runId, pending } = await startWaiting({
      name: "deny with grant over HTTP",
      tools: [deploy],
      model: {
        kind: "scripted",
        turns: [{ calls: [{ name: "deploy", arguments: { version: 1 } }] }, finish],
      },
    });
    const refused = await decide(runId, {
      approve: false,
      turnDigest: pending.turnDigest,
      alwaysAllow: true,
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.message).toMatch(/^alwaysAllow: /);
  });
});
