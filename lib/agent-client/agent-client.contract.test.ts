import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelRunAsPerson, decidePending } from "@/lib/server/testing/agent-run-decisions";
import { installProcessTestDatabase } from "@/lib/server/testing/process-test-database";
import { agentApiRoutes, serveRoutes } from "@/lib/server/testing/serve-routes";
import { createTestAccounts, type TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";
import {
  type AgentClient,
  AgentClientError,
  connect,
  type OpenRunInput,
  type ReleasedCall,
  toolResultForModel,
} from "./index";

// The client's contract (docs/agents.md) against the agent API over loopback HTTP, on PGlite or on the
// Postgres named by TEST_DATABASE_URL. People decide and cancel through their own routes.
let uninstall = async () => {};
let accounts: Record<Role, TestAccount>;
let server: { url: string; close(): Promise<void> };
let client: AgentClient;

beforeAll(async () => {
  ({ uninstall } = await installProcessTestDatabase());
  accounts = await createTestAccounts(["agent", "approver", "operator"]);
  server = await serveRoutes(await agentApiRoutes());
  client = connect({ url: server.url, token: accounts.agent.token });
});
afterAll(async () => {
  await server?.close();
  await uninstall();
});

const TOOLS: OpenRunInput["tools"] = [
  { name: "search", resourceClass: "pure_read", effect: "READ", parameters: { type: "object" } },
  {
    name: "send_email",
    resourceClass: "write",
    effect: "NON_IDEMPOTENT_WRITE",
    approval: "always",
    parameters: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
  },
  {
    name: "slow_write",
    resourceClass: "write",
    effect: "NON_IDEMPOTENT_WRITE",
    approval: "never",
    parameters: { type: "object" },
  },
];

const open = (extra: Partial<OpenRunInput> = {}) =>
  client.openRun({
    name: "client contract",
    agent: { name: "contract-bot", version: "1" },
    tools: TOOLS,
    limits: { maxParallelToolCalls: 2 },
    ...extra,
  });

const searches = (...ids: string[]) => ids.map((id) => ({ id, name: "search", arguments: { q: id } }));

/** An executor that records what it ran, in start order, with the arguments it got. */
function recorder(run: (call: ReleasedCall, signal: AbortSignal) => Promise<unknown> = async () => ({})) {
  const calls: ReleasedCall[] = [];
  return {
    calls,
    ids: () => calls.map((call) => call.callId),
    execute: async (call: ReleasedCall, { signal }: { signal: AbortSignal }) => {
      calls.push(call);
      return run(call, signal);
    },
  };
}

/** Resolves when `count` holders wait (or throws after 10 s): proof that they ran at the same time. */
function meetingPoint(count: number) {
  let waiting = 0;
  let meet = () => {};
  const met = new Promise<void>((resolve) => {
    meet = resolve;
  });
  return async () => {
    waiting += 1;
    if (waiting >= count) meet();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      met,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`only ${waiting} of ${count} calls ran together`)), 10_000);
      }),
    ]).finally(() => clearTimeout(timer));
  };
}

describe("the agent client", () => {
  it("runs five reads at cap 2 in waves of two at a time, measured by the executor, and answers in call order", async () => {
    const run = await open();
    let inFlight = 0;
    let most = 0;
    const waves = [meetingPoint(2), meetingPoint(2)];
    const executor = recorder(async (call) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      // r1 r2 meet, r3 r4 meet: each wave's calls ran together; r5 runs alone.
      const wave = { r1: 0, r2: 0, r3: 1, r4: 1 }[call.callId];
      if (wave !== undefined) await waves[wave]?.();
      inFlight -= 1;
      return { hits: call.callId };
    });

    const outcome = await run.runTurn(searches("r1", "r2", "r3", "r4", "r5"), {
      execute: executor.execute,
      text: "reading",
    });

    expect(most).toBe(2);
    expect(executor.ids().slice(0, 2).sort()).toEqual(["r1", "r2"]);
    expect(executor.ids().slice(2, 4).sort()).toEqual(["r3", "r4"]);
    expect(executor.ids()[4]).toBe("r5");
    expect(outcome.calls.map((call) => [call.callId, call.status, call.result])).toEqual(
      ["r1", "r2", "r3", "r4", "r5"].map((id) => [id, "ok", { hits: id }]),
    );
    expect((await run.finish("read them all")).status).toBe("COMPLETED");
  });

  it("holds the calls after a barrier until a person approves, and the approver's edit reaches the executor", async () => {
    const run = await open({ limits: { maxParallelToolCalls: 3 } });
    const executor = recorder();
    const turn = run.runTurn(
      [
        { id: "r1", name: "search", arguments: { q: "before" } },
        { id: "w", name: "send_email", arguments: '{"to":"a@example.com"}' },
        { id: "r2", name: "search", arguments: { q: "after" } },
      ],
      { execute: executor.execute },
    );
    await decidePending(run.id, accounts.approver, {
      approve: true,
      editedArguments: { to: "b@example.com" },
    });
    const outcome = await turn;

    expect(executor.ids()).toEqual(["r1", "w", "r2"]);
    expect(executor.calls[1]).toMatchObject({ input: { to: "b@example.com" }, edited: true });
    expect(executor.calls[2]?.input).toEqual({ q: "after" });
    expect(outcome.calls[1]).toMatchObject({
      status: "ok",
      edited: true,
      arguments: '{"to":"b@example.com"}',
    });
  });

  it("tells the model a denial's reply as the call's tool result, and never executes the calls it invalidated", async () => {
    const run = await open();
    const executor = recorder();
    const turn = run.runTurn(
      [
        { id: "w", name: "send_email", arguments: { to: "boss@example.com" } },
        { id: "r", name: "search", arguments: { q: "later" } },
      ],
      { execute: executor.execute },
    );
    await decidePending(run.id, accounts.approver, { approve: false, reason: "not to that address" });
    const outcome = await turn;

    expect(executor.ids()).toEqual([]);
    expect(outcome.calls.map((call) => call.status)).toEqual(["denied", "invalidated"]);
    expect(outcome.calls[0]?.reply).toBe("not to that address");
    const told = outcome.calls.map(toolResultForModel);
    expect(told[0]).toMatchObject({ kind: "denied" });
    expect(told[0]?.text).toBe("An approver denied this call: not to that address. It did not run.");
    expect(told[1]?.text).toMatch(/not executed/i);
  });

  it("reports a tool's thrown error with its code in the server's form, or, when it has none, in the message", async () => {
    const run = await open();
    const outcome = await run.runTurn(searches("file", "page"), {
      execute: async (call) => {
        throw call.callId === "file"
          ? Object.assign(new Error("no such file"), { code: "ENOENT" })
          : Object.assign(new Error("Not Found"), { code: 404 });
      },
    });
    expect(outcome.calls.map((call) => [call.status, call.error])).toEqual([
      ["error", { code: "enoent", message: "no such file" }],
      ["error", expect.objectContaining({ message: "[404] Not Found" })],
    ]);
  });

  it("renews the lease while a call runs three times the lease's length, so it is neither released again nor interrupted", {
    timeout: 60_000,
  }, async () => {
    // A lease of 1.5 s (heartbeats every 0.5 s) and a call of 4.5 s.
    const run = await open({ releaseLeaseSeconds: 1.5 });
    const executor = recorder(async () => {
      await new Promise((resolve) => setTimeout(resolve, 4_500));
      return { written: true };
    });
    const outcome = await run.runTurn([{ id: "s", name: "slow_write", arguments: {} }], {
      execute: executor.execute,
    });
    expect(outcome.calls[0]).toMatchObject({ status: "ok", result: { written: true } });
    expect(executor.calls.map((call) => call.attempt)).toEqual([1]);
  });

  it("picks the turn up in another client after the first was dropped while it waited for a person", async () => {
    const first = recorder();
    const run = await open();
    const dropped = new AbortController();
    const calls = [
      { id: "r1", name: "search", arguments: { q: "first" } },
      { id: "w", name: "send_email", arguments: { to: "a@example.com" } },
    ];
    const abandoned = run.runTurn(calls, { execute: first.execute, signal: dropped.signal });
    const pending = await decidePendingLater(run.id);
    dropped.abort();
    await expect(abandoned).rejects.toMatchObject({ code: "cancelled" });
    await pending.approve();

    // A new process: a new connection, the run by its id, the same turn sent again.
    const second = recorder();
    const resumed = await connect({ url: server.url, token: accounts.agent.token }).resumeRun(run.id);
    const outcome = await resumed.runTurn(calls, { execute: second.execute });

    expect(first.ids()).toEqual(["r1"]);
    expect(second.ids()).toEqual(["w"]);
    expect(outcome.calls.map((call) => call.status)).toEqual(["ok", "ok"]);
  });

  it("drives the turn in progress after a restart without its calls (continueTurn)", async () => {
    const run = await open();
    const dropped = new AbortController();
    const abandoned = run.runTurn([{ id: "w", name: "send_email", arguments: { to: "a@example.com" } }], {
      execute: async () => ({ sent: "by the first process" }),
      signal: dropped.signal,
    });
    const pending = await decidePendingLater(run.id);
    dropped.abort();
    await expect(abandoned).rejects.toMatchObject({ code: "cancelled" });
    await pending.approve();

    const second = recorder(async () => ({ sent: "by the second process" }));
    const resumed = await connect({ url: server.url, token: accounts.agent.token }).resumeRun(run.id);
    const outcome = await resumed.continueTurn({ execute: second.execute });
    expect(second.ids()).toEqual(["w"]);
    expect(outcome?.calls[0]).toMatchObject({ status: "ok", result: { sent: "by the second process" } });
  });

  it("answers a finished turn sent again (a framework replaying its checkpoint) with its outcome, executing nothing", async () => {
    const run = await open();
    const first = await run.runTurn(searches("r1", "r2"), {
      execute: async (call) => ({ hit: call.callId }),
    });
    const again = recorder();
    const replayed = await run.runTurn(searches("r1", "r2"), { execute: again.execute });
    expect(again.ids()).toEqual([]);
    expect(replayed).toEqual(first);
    expect(run.state).toMatchObject({ next: "submit_turn", turn: 1 });
  });

  it("stops at a cancel from a person: the call in flight is told to stop and the next wave never runs", async () => {
    const run = await open();
    const wave = meetingPoint(2);
    const aborted: string[] = [];
    const executor = recorder(async (call, signal) => {
      await wave();
      await cancelOnce();
      // Held until the cancel reaches it.
      await new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
      aborted.push(call.callId);
      return {};
    });
    let cancelling: Promise<void> | null = null;
    const cancelOnce = () => {
      cancelling ??= cancelRunAsPerson(run.id, accounts.operator);
      return cancelling;
    };

    const error = await run
      .runTurn(searches("r1", "r2", "r3", "r4"), { execute: executor.execute })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AgentClientError);
    expect(error).toMatchObject({ code: "cancelled" });
    expect(executor.ids().sort()).toEqual(["r1", "r2"]);
    expect(aborted.sort()).toEqual(["r1", "r2"]);
  });

  it("throws `refused` with the planner's problems for a turn the server refuses whole, and the same turn number stays open", async () => {
    const run = await open();
    const error = await run
      .runTurn([{ id: "x", name: "no_such_tool", arguments: {} }], { execute: async () => ({}) })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "refused", serverCode: "turn_refused", status: 422 });
    expect((error as AgentClientError).details.problems).toEqual([
      expect.objectContaining({ code: "unknown_tool" }),
    ]);

    const outcome = await run.runTurn(searches("r1"), { execute: async () => "found" });
    expect(outcome).toMatchObject({ turn: 0, calls: [{ status: "ok", result: "found" }] });
  });

  it("throws `stale` for a turn the run no longer waits for", async () => {
    const run = await open();
    await run.runTurn(searches("r1"), { execute: async () => ({}) });
    const behind = await connect({ url: server.url, token: accounts.agent.token }).resumeRun(run.id);
    await behind.runTurn(searches("r2"), { execute: async () => ({}) });
    // `run` still believes turn 1 is next: the server says the run has moved on.
    await expect(run.runTurn(searches("r3"), { execute: async () => ({}) })).rejects.toMatchObject({
      code: "stale",
      serverCode: "turn_conflict",
    });
  });

  it("retries with backoff while the server answers 503, then gives up with `unavailable`", async () => {
    let refusals = 2;
    const flaky = connect({
      url: server.url,
      token: accounts.agent.token,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      fetch: async (input, init) => {
        if (refusals-- > 0) return new Response("{}", { status: 503, headers: { "retry-after": "0" } });
        return fetch(input, init);
      },
    });
    const run = await flaky.openRun({ name: "flaky", agent: { name: "flaky-bot" }, tools: TOOLS });
    expect(run.state.next).toBe("submit_turn");

    const down = connect({
      url: server.url,
      token: accounts.agent.token,
      retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      fetch: async () => new Response("{}", { status: 503 }),
    });
    await expect(down.resumeRun(run.id)).rejects.toMatchObject({ code: "unavailable", status: 503 });
  });

  it("tries a lost answer again, except to opening a run, which a second request would open twice", async () => {
    let sent = 0;
    let lose = 1;
    const lossy = connect({
      url: server.url,
      token: accounts.agent.token,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      fetch: async (input, init) => {
        sent += 1;
        const answer = await fetch(input, init);
        if (lose-- > 0) throw new TypeError("fetch failed: the connection dropped before the answer");
        return answer;
      },
    });
    await expect(
      lossy.openRun({ name: "lossy", agent: { name: "lossy-bot" }, tools: TOOLS }),
    ).rejects.toMatchObject({
      code: "unavailable",
      // Which server it tried: a wrong --server is what a person then looks for.
      message: expect.stringContaining(`The server did not answer POST ${server.url}/api/agent/runs:`),
    });
    expect(sent).toBe(1);

    const run = await open();
    lose = 1;
    sent = 0;
    expect((await lossy.resumeRun(run.id)).state.next).toBe("submit_turn");
    expect(sent).toBe(2);
  });
});

/** Waits until the run waits for a person; `approve()` then approves as the approver would. */
async function decidePendingLater(runId: string) {
  const { waitForPendingApproval } = await import("@/lib/server/testing/agent-run-decisions");
  await waitForPendingApproval(runId);
  return { approve: () => decidePending(runId, accounts.approver, { approve: true }).then(() => {}) };
}
