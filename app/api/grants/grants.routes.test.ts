import { beforeAll, describe, expect, it } from "vitest";
import { readApprovals } from "@/db/repositories/approval-audit";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { routeParams, setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

let accounts: Record<Role, TestAccount>;
/** `Authorization` of another token of the agent account's owner, and of another person's agent token. */
let rotatedAgentHeaders: Record<string, string>;
let othersAgentHeaders: Record<string, string>;
let routes: {
  openAgentRun: typeof import("../agent/runs/route");
  agentTurns: typeof import("../agent/runs/[id]/turns/route");
  runs: typeof import("../runs/route");
  run: typeof import("../runs/[id]/route");
  decision: typeof import("../runs/[id]/decision/route");
  grants: typeof import("./route");
  grant: typeof import("./[id]/route");
};

const setup = setUpRouteTests();

beforeAll(async () => {
  accounts = setup.accounts;
  const { createToken } = await import("@/lib/server/auth/accounts");
  const { getAuth } = await import("@/lib/server/server-context");
  const agentToken = async (email: string, name: string) => {
    const { token } = await createToken(await getAuth(), setup.handle.db, { email, name, role: "agent" });
    return { authorization: `Bearer ${token}` };
  };
  rotatedAgentHeaders = await agentToken(accounts.agent.email, "rotated agent");
  othersAgentHeaders = await agentToken(accounts.operator.email, "operator agent");
  routes = {
    openAgentRun: await import("../agent/runs/route"),
    agentTurns: await import("../agent/runs/[id]/turns/route"),
    runs: await import("../runs/route"),
    run: await import("../runs/[id]/route"),
    decision: await import("../runs/[id]/decision/route"),
    grants: await import("./route"),
    grant: await import("./[id]/route"),
  };
});

const { request: as, post } = setup;
const params = routeParams;

async function readRun(runId: string) {
  return (await routes.run.GET(as("viewer", "http://test"), params(runId))).json();
}

/** Starts the gated-write scenario (its name is its agent) and waits until it waits or ends. */
async function runUntil(name: string, status: string): Promise<{ runId: string; turnDigest: string }> {
  const created = await routes.runs.POST(post("operator", "http://test/api/runs", gatedWriteScenario(name)));
  const { runId } = await created.json();
  await expect.poll(async () => (await readRun(runId)).status, { timeout: 20_000 }).toBe(status);
  return { runId, turnDigest: (await readRun(runId)).pending?.turnDigest ?? "" };
}

const agentPost = (headers: Record<string, string>, url: string, body: unknown) =>
  new Request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

/**
 * Opens a run of the agent "grant-agent" with the token of `headers` and submits a gated write:
 * the run and what the agent is answered once the turn is planned.
 */
async function agentWrites(headers: Record<string, string>) {
  const opened = await routes.openAgentRun.POST(
    agentPost(headers, "http://test/api/agent/runs", {
      name: "agent writes",
      agent: { name: "grant-agent" },
      tools: [
        {
          name: "write_note",
          resourceClass: "write",
          effect: "NON_IDEMPOTENT_WRITE",
          approval: "always",
          parameters: { type: "object" },
        },
      ],
    }),
  );
  expect(opened.status).toBe(201);
  const { runId } = await opened.json();
  const turn = { turn: 0, text: null, calls: [{ id: "w", name: "write_note", arguments: "{}" }] };
  const submitted = await routes.agentTurns.POST(
    agentPost(headers, `http://test/api/agent/runs/${runId}/turns?wait=20`, turn),
    params(runId),
  );
  expect(submitted.status).toBe(200);
  return { runId: runId as string, next: await submitted.json() };
}

const decide = (role: Role, runId: string, body: unknown) =>
  routes.decision.POST(
    post(role, `http://test/api/runs/${runId}/decision?wait=settled`, body),
    params(runId),
  );

describe("/api/grants", () => {
  it("refuses bad input by name, and nothing is decided or stored", async () => {
    const { runId, turnDigest } = await runUntil("grants refused", "WAITING_FOR_APPROVAL");
    const refusals = [
      [{ scope: "team" }, "grant.scope"],
      [{ scope: "agent", maxUses: 0 }, "grant.maxUses"],
      [{ scope: "agent", expiresInSeconds: 1.5 }, "grant.expiresInSeconds"],
      [{ scope: "agent", condition: "args.path.startsWith(" }, "grant.condition"],
      [{ scope: "agent", condition: "call.nonsense == 1" }, "grant.condition"],
    ] as const;
    for (const [grant, field] of refusals) {
      const response = await decide("approver", runId, { approve: true, turnDigest, grant });
      expect(response.status, field).toBe(400);
      const body = await response.json();
      expect(body.error.code).toBe("invalid_request");
      expect(JSON.stringify(body.error), field).toContain(field);
    }
    expect((await readRun(runId)).status).toBe("WAITING_FOR_APPROVAL");
    expect(await (await routes.grants.GET(as("viewer", "http://test/api/grants"))).json()).toEqual([]);

    const badQuery = await routes.grants.GET(as("viewer", "http://test/api/grants?runId=nope"));
    expect(badQuery.status).toBe(400);
    expect(JSON.stringify(await badQuery.json())).toContain("runId");
    const unknownQuery = await routes.grants.GET(as("viewer", "http://test/api/grants?tool=x"));
    expect(unknownQuery.status).toBe(400);
    const badId = await routes.grant.DELETE(
      as("approver", "http://test/api/grants/nope", { method: "DELETE" }),
      params("nope"),
    );
    expect(badId.status).toBe(400);
    expect((await badId.json()).error.issues).toEqual([
      { path: "id", message: 'must be a grant id (a UUID); got "nope"' },
    ]);
  });

  it("an approval gives a grant for the agent; a later run's write goes ungated and audited naming it; only its giver or an admin revokes it", async () => {
    const { runId, turnDigest } = await runUntil("grants agent", "WAITING_FOR_APPROVAL");
    const decided = await decide("admin", runId, {
      approve: true,
      turnDigest,
      grant: { scope: "agent", condition: 'args.path == "a.txt"', expiresInSeconds: 8 * 60 * 60 },
    });
    expect(decided.status).toBe(200);
    const { grant } = await decided.json();
    expect(grant).toMatchObject({
      toolName: "write_file",
      scope: "agent",
      // The scenario's name and the digest of its content: the same name with other content is another agent.
      agent: expect.stringMatching(/^scenario:grants agent@[0-9a-f]{64}$/),
    });

    const listed = await (await routes.grants.GET(as("viewer", "http://test/api/grants"))).json();
    expect(listed.map((each: { id: string }) => each.id)).toEqual([grant.id]);

    const later = await runUntil("grants agent", "COMPLETED");
    expect(await readApprovals(setup.handle.db, later.runId)).toEqual([
      expect.objectContaining({ kind: "automatic", toolName: "write_file", grantedBy: grant.id }),
    ]);
    // Another agent's write still waits.
    await runUntil("grants another agent", "WAITING_FOR_APPROVAL");

    const byOther = await routes.grant.DELETE(
      as("approver", `http://test/api/grants/${grant.id}`, { method: "DELETE" }),
      params(grant.id),
    );
    expect(byOther.status).toBe(403);
    const byAdmin = await routes.grant.DELETE(
      as("admin", `http://test/api/grants/${grant.id}`, { method: "DELETE" }),
      params(grant.id),
    );
    expect(byAdmin.status).toBe(200);
    expect(await byAdmin.json()).toMatchObject({ id: grant.id, revokedById: accounts.admin.userId });
    const again = await routes.grant.DELETE(
      as("admin", `http://test/api/grants/${grant.id}`, { method: "DELETE" }),
      params(grant.id),
    );
    expect(again.status).toBe(404);
    await runUntil("grants agent", "WAITING_FOR_APPROVAL");
  });

  it("an outside agent's grant covers its owner's runs of that agent, with any of their tokens, not another person's agent of the same name", async () => {
    const first = await agentWrites(accounts.agent.headers);
    expect(first.next.waitingFor).toBe("approval");
    const decided = await decide("approver", first.runId, {
      approve: true,
      turnDigest: (await readRun(first.runId)).pending?.turnDigest,
      grant: { scope: "agent" },
    });
    expect(decided.status).toBe(200);
    const { grant } = await decided.json();
    const listed = await (await routes.grants.GET(as("viewer", "http://test/api/grants"))).json();
    expect(listed).toEqual([
      expect.objectContaining({
        id: grant.id,
        scope: "agent",
        agent: "agent:grant-agent",
        agentOwnerId: accounts.agent.userId,
        agentOwnerName: accounts.agent.name,
      }),
    ]);

    const others = await agentWrites(othersAgentHeaders);
    expect(others.next.waitingFor).toBe("approval");
    expect(await readApprovals(setup.handle.db, others.runId)).toEqual([]);

    for (const headers of [accounts.agent.headers, rotatedAgentHeaders]) {
      const later = await agentWrites(headers);
      expect(later.next).toMatchObject({ next: "execute", waitingFor: null });
      expect(await readApprovals(setup.handle.db, later.runId)).toEqual([
        expect.objectContaining({ kind: "automatic", toolName: "write_note", grantedBy: grant.id }),
      ]);
    }
  });

  it("lists a grant for the runs one person starts with that person's name, which /grants shows, not their id", async () => {
    const { runId, turnDigest } = await runUntil("grants user", "WAITING_FOR_APPROVAL");
    const decided = await decide("approver", runId, { approve: true, turnDigest, grant: { scope: "user" } });
    expect(decided.status).toBe(200);
    const { grant } = await decided.json();
    const listed = await (await routes.grants.GET(as("viewer", "http://test/api/grants"))).json();
    expect(listed.find((each: { id: string }) => each.id === grant.id)).toMatchObject({
      scope: "user",
      starterId: accounts.operator.userId,
      starterName: accounts.operator.name,
    });
    expect(listed.filter((each: { scope: string }) => each.scope !== "user")).not.toContainEqual(
      expect.objectContaining({ starterName: expect.anything() }),
    );
  });
});
