import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { STREAM_REAUTHORIZE_MS } from "@/lib/server/auth/stream-authorization";
import { routeParams, setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// The agent API over HTTP, on the process-wide (test) database: what docs/agent-api.md walks through.
let accounts: Record<Role, TestAccount>;
let agentHeaders: Record<string, string>;
let otherAgentHeaders: Record<string, string>;
let routes: {
  open: typeof import("./runs/route");
  run: typeof import("./runs/[id]/route");
  next: typeof import("./runs/[id]/next/route");
  turns: typeof import("./runs/[id]/turns/route");
  finish: typeof import("./runs/[id]/finish/route");
  reports: typeof import("./runs/[id]/reports/route");
  heartbeat: typeof import("./runs/[id]/heartbeat/route");
  events: typeof import("./runs/[id]/events/route");
  cancel: typeof import("./runs/[id]/cancel/route");
  decision: typeof import("../runs/[id]/decision/route");
  peopleRun: typeof import("../runs/[id]/route");
  peopleRuns: typeof import("../runs/route");
};

const setup = setUpRouteTests(["agent", "viewer", "operator", "approver"]);

beforeAll(async () => {
  accounts = setup.accounts;
  agentHeaders = accounts.agent.headers;
  // An operator's second token, made for an agent: another agent.
  const { createToken } = await import("@/lib/server/auth/accounts");
  const { getAuth } = await import("@/lib/server/server-context");
  const { getDatabase } = await import("@/lib/server/database");
  const { token } = await createToken(await getAuth(), (await getDatabase()).db, {
    email: accounts.operator.email,
    name: "other agent",
    role: "agent",
  });
  otherAgentHeaders = { authorization: `Bearer ${token}` };
  routes = {
    open: await import("./runs/route"),
    run: await import("./runs/[id]/route"),
    next: await import("./runs/[id]/next/route"),
    turns: await import("./runs/[id]/turns/route"),
    finish: await import("./runs/[id]/finish/route"),
    reports: await import("./runs/[id]/reports/route"),
    heartbeat: await import("./runs/[id]/heartbeat/route"),
    events: await import("./runs/[id]/events/route"),
    cancel: await import("./runs/[id]/cancel/route"),
    decision: await import("../runs/[id]/decision/route"),
    peopleRun: await import("../runs/[id]/route"),
    peopleRuns: await import("../runs/route"),
  };
});

const post = (headers: Record<string, string>, body: unknown, query = "") =>
  new Request(`http://test/api${query}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const get = (headers: Record<string, string>, query = "") =>
  new Request(`http://test/api${query}`, { headers });
const params = routeParams;

const TOOLS = [
  { name: "search", resourceClass: "pure_read", effect: "READ", parameters: { type: "object" } },
  {
    name: "send_email",
    resourceClass: "write",
    effect: "NON_IDEMPOTENT_WRITE",
    approval: "always",
    parameters: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
  },
];

/** A new operator's agent token, and how to make that operator a viewer. */
async function operatorsAgentToken(name: string) {
  const { createToken, createUser } = await import("@/lib/server/auth/accounts");
  const { setUserRole } = await import("@/lib/server/auth/account-changes");
  const { getAuth } = await import("@/lib/server/server-context");
  const auth = await getAuth();
  const email = `operator-${crypto.randomUUID().slice(0, 8)}@test.example`;
  await createUser(auth, { email, name, password: "test-password-1", role: "operator" });
  const { token } = await createToken(auth, setup.handle.db, { email, name: "their agent", role: "agent" });
  return {
    headers: { authorization: `Bearer ${token}` },
    demote: () => setUserRole(auth, setup.handle.db, null, { email, role: "viewer" }),
  };
}

async function openRun(headers = agentHeaders): Promise<string> {
  const response = await routes.open.POST(
    post(headers, {
      name: "agent over HTTP",
      agent: { name: "http-bot", version: "2", traceId: "t-1" },
      tools: TOOLS,
    }),
  );
  expect(response.status).toBe(201);
  const body = await response.json();
  expect(body.next).toMatchObject({ next: "submit_turn", turn: 0 });
  return body.runId;
}

async function nextOf(runId: string, want: string) {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const body = await (await routes.next.GET(get(agentHeaders, "?wait=1"), params(runId))).json();
    if (body.next === want || (want === "approval" && body.waitingFor === "approval")) return body;
  }
  throw new Error(`never ${want}`);
}

describe("the agent API", () => {
  it("drives a run: turn, releases, reports, an approval in the inbox with an edit, finish", async () => {
    const runId = await openRun();
    const submitted = await routes.turns.POST(
      post(agentHeaders, {
        turn: 0,
        text: "reading, then writing",
        calls: [
          { id: "a", name: "search", arguments: '{"q":"x"}' },
          { id: "b", name: "send_email", arguments: '{"to":"a@example.com"}' },
        ],
      }),
      params(runId),
    );
    expect(submitted.status).toBe(200);
    const first = await nextOf(runId, "execute");
    expect(first.releases.map((release: { callId: string }) => release.callId)).toEqual(["a"]);
    const report = { releaseToken: first.releases[0].releaseToken, ok: true, result: { hits: 1 } };
    expect((await routes.reports.POST(post(agentHeaders, report), params(runId))).status).toBe(200);
    expect((await routes.reports.POST(post(agentHeaders, report), params(runId))).status).toBe(200);
    const conflicting = await routes.reports.POST(
      post(agentHeaders, { ...report, result: 2 }),
      params(runId),
    );
    expect(conflicting.status).toBe(409);
    expect((await conflicting.json()).error.code).toBe("report_conflict");

    const waiting = await nextOf(runId, "approval");
    const view = await (await routes.peopleRun.GET(get(accounts.viewer.headers), params(runId))).json();
    // The agent may not decide; an approver does, in the inbox, with an edit.
    const refused = await routes.decision.POST(post(agentHeaders, { approve: true }), params(runId));
    expect(refused.status).toBe(403);
    expect(waiting.releases).toEqual([]);
    const approved = await routes.decision.POST(
      post(accounts.approver.headers, {
        approve: true,
        turnDigest: view.pending.turnDigest,
        editedArguments: { to: "b@example.com" },
      }),
      params(runId),
    );
    expect(approved.status).toBe(200);
    const gate = await nextOf(runId, "execute");
    expect(gate.releases[0]).toMatchObject({ callId: "b", edited: true });
    expect(JSON.parse(gate.releases[0].arguments)).toEqual({ to: "b@example.com" });
    expect((await routes.heartbeat.POST(post(agentHeaders, {}), params(runId))).status).toBe(200);
    await routes.reports.POST(
      post(agentHeaders, { releaseToken: gate.releases[0].releaseToken, ok: true, result: { sent: true } }),
      params(runId),
    );
    const outcome = await nextOf(runId, "submit_turn");
    expect(outcome.turn).toBe(1);
    expect(outcome.outcome.calls.map((call: { status: string }) => call.status)).toEqual(["ok", "ok"]);
    const finished = await routes.finish.POST(
      post(agentHeaders, { turn: 1, text: "sent it" }, "?wait=20"),
      params(runId),
    );
    expect(await finished.json()).toMatchObject({ next: "finished", status: "COMPLETED" });

    // People see it, marked with the agent.
    const listed = await (await routes.peopleRuns.GET(get(accounts.viewer.headers, "?q=http-bot"))).json();
    expect(listed.items.map((item: { id: string }) => item.id)).toContain(runId);
  });

  it("an agent token reads and drives only its own runs, and none of people's pages", async () => {
    const runId = await openRun();
    const foreign = await routes.run.GET(get(otherAgentHeaders), params(runId));
    expect(foreign.status).toBe(404);
    const turn = { turn: 0, text: null, calls: [{ id: "a", name: "search", arguments: "{}" }] };
    expect((await routes.turns.POST(post(otherAgentHeaders, turn), params(runId))).status).toBe(404);
    const peoplesPage = await routes.peopleRun.GET(get(agentHeaders), params(runId));
    expect(peoplesPage.status).toBe(403);
    // Named as an agent's token, not by its owner's e-mail and role.
    expect((await peoplesPage.json()).error.message).toBe(
      "This needs the viewer role; the API token sent is an agent's, which reaches only the agent API (/api/agent/runs).",
    );
    expect((await routes.peopleRuns.GET(get(agentHeaders))).status).toBe(403);
    // A viewer's token is not an agent; a person may not start an agent run as a scenario.
    expect(
      (await routes.open.POST(post(accounts.viewer.headers, { name: "x", agent: { name: "y" } }))).status,
    ).toBe(403);
    const forged = await routes.peopleRuns.POST(
      post(accounts.operator.headers, {
        name: "forged",
        model: {
          kind: "agent",
          agent: { name: "x" },
          openedBy: { tokenId: "t", tokenName: "t", ownerId: "u", ownerName: "u" },
        },
      }),
    );
    expect(forged.status).toBe(400);
  });

  it("works only while the token's owner may start runs: a viewer's agent token opens and drives nothing", async () => {
    const { apikey } = await import("@/db/schema");
    const { eq } = await import("drizzle-orm");
    const { createToken } = await import("@/lib/server/auth/accounts");
    const { getAuth } = await import("@/lib/server/server-context");
    // A viewer's agent token, as createToken made them before it refused to.
    const { token, summary } = await createToken(await getAuth(), setup.handle.db, {
      email: accounts.viewer.email,
      name: "a viewer agent",
      role: "viewer",
    });
    await setup.handle.db
      .update(apikey)
      .set({ metadata: JSON.stringify({ role: "agent" }) })
      .where(eq(apikey.id, summary.id));
    const viewersAgent = { authorization: `Bearer ${token}` };
    const someRun = await openRun();

    for (const refused of [
      await routes.open.POST(
        post(viewersAgent, { name: "x", agent: { name: "y" }, tools: TOOLS, mcpServers: ["memory"] }),
      ),
      await routes.run.GET(get(viewersAgent), params(someRun)),
      await routes.next.GET(get(viewersAgent, "?wait=0"), params(someRun)),
    ]) {
      expect(refused.status).toBe(403);
      expect((await refused.json()).error).toEqual({
        code: "forbidden",
        message:
          "An agent token acts for its owner, who must be an operator or above to open agent runs; this token's owner is viewer.",
      });
    }
  });

  it("stops an operator's agent token at once when the operator becomes a viewer", async () => {
    const { headers, demote } = await operatorsAgentToken("Soon a viewer");
    const runId = await openRun(headers);
    // Used once more, so the identity cache holds it as an operator's.
    expect((await routes.run.GET(get(headers), params(runId))).status).toBe(200);

    await demote();
    for (const refused of [
      await routes.run.GET(get(headers), params(runId)),
      await routes.turns.POST(post(headers, { turn: 0, text: "done", calls: [] }), params(runId)),
      await routes.open.POST(post(headers, { name: "x", agent: { name: "y" }, tools: TOOLS })),
    ]) {
      expect(refused.status).toBe(403);
      expect((await refused.json()).error.message).toMatch(/must be an operator or above/);
    }
  });

  it("closes an agent's open event stream at its next re-check once its owner is a viewer", async () => {
    const { headers, demote } = await operatorsAgentToken("Streams, then a viewer");
    const runId = await openRun(headers);
    // Only the stream's re-check (and its heartbeat) run on the clock this test moves.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      const stream = await routes.events.GET(get(headers), params(runId));
      expect(stream.status).toBe(200);
      const reader = stream.body?.getReader();
      if (!reader) throw new Error("the stream has no body");
      await reader.read(); // the run's events so far: the stream is open
      await demote();
      await vi.advanceTimersByTimeAsync(STREAM_REAUTHORIZE_MS);
      // It ends: the test would time out reading an open stream.
      for (let part = await reader.read(); !part.done; part = await reader.read()) {}
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses a run or agent name that would show as another (bidirectional or invisible characters)", async () => {
    for (const [body, field] of [
      [{ name: "agent over HTTP", agent: { name: "\u202eevil" }, tools: TOOLS }, "agent.name"],
      [{ name: "pay\u200broll", agent: { name: "http-bot" }, tools: TOOLS }, "name"],
    ] as const) {
      const refused = await routes.open.POST(post(agentHeaders, body));
      expect(refused.status).toBe(400);
      expect((await refused.json()).error.issues).toEqual([
        { path: field, message: "only printable characters (no control or invisible ones)" },
      ]);
    }
  });

  it("takes a heartbeat with no body or {}, and refuses any other body naming it", async () => {
    const runId = await openRun();
    const bare = new Request("http://test/api", { method: "POST", headers: agentHeaders });
    expect((await routes.heartbeat.POST(bare, params(runId))).status).toBe(200);
    expect((await routes.heartbeat.POST(post(agentHeaders, {}), params(runId))).status).toBe(200);
    for (const [body, message] of [
      [
        { leaseSeconds: 600 },
        'Invalid request: (body): takes no body: send none, or {} (not "leaseSeconds")',
      ],
      [[], "Invalid request: (body): takes no body: send none, or {}"],
      ["not json", "Invalid request: (body): the body is not valid JSON"],
    ] as const) {
      const refused = await routes.heartbeat.POST(post(agentHeaders, body), params(runId));
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toMatchObject({ code: "invalid_request", message });
    }
  });

  it("answers the agent's cancel once the run has ended: a heartbeat after it is a 409", async () => {
    const runId = await openRun();
    // A cancel of the turn only is people's; asked for here, it is refused, not taken as the run's.
    const asked = await routes.cancel.POST(post(agentHeaders, { scope: "turn" }), params(runId));
    expect(asked.status).toBe(400);
    expect((await asked.json()).error.message).toBe(
      'Invalid request: (body): takes no body: send none, or {} (not "scope")',
    );
    // Not cancelled: a heartbeat still renews its leases.
    expect((await routes.heartbeat.POST(post(agentHeaders, {}), params(runId))).status).toBe(200);
    const cancelled = await routes.cancel.POST(post(agentHeaders, {}), params(runId));
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toEqual({ status: "CANCELLED" });
    const heartbeat = await routes.heartbeat.POST(post(agentHeaders, {}), params(runId));
    expect(heartbeat.status).toBe(409);
    expect((await heartbeat.json()).error).toMatchObject({
      code: "not_waiting",
      message: `Run ${runId} has ended (CANCELLED).`,
    });
  });

  it("refuses hostile turns and reports with a clear 4xx, storing nothing", async () => {
    const runId = await openRun();
    const turn = (calls: unknown[]) => post(agentHeaders, { turn: 0, text: null, calls });
    const many = Array.from({ length: 10_000 }, (_, index) => ({
      id: `c${index}`,
      name: "search",
      arguments: "{}",
    }));
    const tooMany = await routes.turns.POST(turn(many), params(runId));
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error.message).toMatch(/at most 1024 calls/);
    for (const calls of [
      [
        { id: "same", name: "search", arguments: "{}" },
        { id: "same", name: "search", arguments: "{}" },
      ],
      [{ id: "a", name: "search", arguments: "{oops" }],
      [{ id: "a", name: "rm_rf", arguments: "{}" }],
    ]) {
      const refused = await routes.turns.POST(turn(calls), params(runId));
      expect(refused.status).toBe(422);
      const body = await refused.json();
      expect(body.error.code).toBe("turn_refused");
      expect(body.error.details.problems.length).toBeGreaterThan(0);
    }
    const notText = await routes.turns.POST(
      turn([{ id: "a", name: "search", arguments: { q: 1 } }]),
      params(runId),
    );
    expect(notText.status).toBe(400);
    const state = await (await routes.run.GET(get(agentHeaders), params(runId))).json();
    expect(state).toMatchObject({ next: "submit_turn", turn: 0 });

    await routes.turns.POST(turn([{ id: "a", name: "search", arguments: "{}" }]), params(runId));
    const released = await nextOf(runId, "execute");
    const token = released.releases[0].releaseToken;
    const huge = await routes.reports.POST(
      post(agentHeaders, { releaseToken: token, ok: true, result: "x".repeat(50 * 1024 * 1024) }),
      params(runId),
    );
    expect(huge.status).toBe(413);
    const large = await routes.reports.POST(
      post(agentHeaders, { releaseToken: token, ok: true, result: "x".repeat(1_500_000) }),
      params(runId),
    );
    expect(large.status).toBe(413);
    // A report of neither shape is told what is wrong in the one it came closest to.
    const misshapen = await routes.reports.POST(
      post(agentHeaders, { releaseToken: token, ok: false, error: "the tool crashed" }),
      params(runId),
    );
    expect(misshapen.status).toBe(400);
    expect((await misshapen.json()).error.message).toBe(
      "Invalid request: (body): does not match any of the accepted shapes (the closest: error must be an object)",
    );
    const compressed = await routes.reports.POST(
      new Request("http://test/api", {
        method: "POST",
        headers: { "content-type": "application/json", "content-encoding": "gzip", ...agentHeaders },
        body: gzipSync(JSON.stringify({ releaseToken: token, ok: true, result: "fine" })),
      }),
      params(runId),
    );
    expect(compressed.status).toBe(415);
    expect((await compressed.json()).error.message).toMatch(/Content-Encoding: gzip.*send it uncompressed/);
    const forged = await routes.reports.POST(
      post(agentHeaders, { releaseToken: "rel_forged", ok: true, result: 1 }),
      params(runId),
    );
    expect(forged.status).toBe(404);
    // Nothing was half-applied: the call is still released, and a proper report settles it.
    const ok = await routes.reports.POST(
      post(agentHeaders, { releaseToken: token, ok: true, result: "fine" }),
      params(runId),
    );
    expect(ok.status).toBe(200);
    expect((await nextOf(runId, "submit_turn")).outcome.calls[0]).toMatchObject({
      status: "ok",
      result: "fine",
    });
  });
});
