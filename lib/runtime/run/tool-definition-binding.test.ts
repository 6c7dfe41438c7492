import { describe, expect, it } from "vitest";
import { createMemoryRunHost } from "../testing/memory-run-host";
import { createMemoryRunStore } from "../testing/memory-run-store";
import { buildScenario } from "../testing/scenario-harness";
import type { ToolDefinition } from "../tools/tool-definition";
import { computeTurnDigest } from "../turn-digest";
import { TOOL_CHANGED } from "./execute-call";
import type { RunStore } from "./run-store";

const fingerprint = (letter: string) => letter.repeat(64);

/**
 * A stand-in for an MCP server: a gated write and a read, whose definitions
 * (fingerprints) the test changes at will, and a record of every call sent.
 */
function remoteServer(hostOptions: Parameters<typeof createMemoryRunHost>[0] = {}) {
  const state = {
    writeFingerprint: fingerprint("a"),
    listed: true,
    sent: [] as string[],
    listings: 0,
    /** The write never answers (its worker dies while it is in flight). */
    hangs: false,
    /** The server changes the write's definition between a listing and the send that follows it. */
    changesAtSend: false,
    writeEffect: "NON_IDEMPOTENT_WRITE" as "NON_IDEMPOTENT_WRITE" | "IDEMPOTENT_WRITE",
  };
  const origin = (serverToolName: string) => ({
    kind: "mcp" as const,
    server: "srv",
    trust: "trusted" as const,
    serverToolName,
    annotations: null,
    outputSchema: null,
    basis: "test",
  });
  const definitions = (): ToolDefinition[] => [
    {
      name: "srv__write",
      description: `Writes (definition ${state.writeFingerprint.slice(0, 1)})`,
      parameters: { type: "object", properties: { text: { type: "string" } } },
      resourceClass: "write",
      effect: state.writeEffect,
      approval: "always",
      fingerprint: state.writeFingerprint,
      origin: origin("write"),
      currentFingerprint: async () =>
        state.changesAtSend ? fingerprint("d") : state.listed ? state.writeFingerprint : null,
      execute: async (args) => {
        state.sent.push(`write ${JSON.stringify(args)}`);
        if (state.hangs) await new Promise(() => {});
        return { ok: true };
      },
    },
    {
      name: "srv__read",
      description: "Reads",
      parameters: { type: "object" },
      resourceClass: "pure_read",
      effect: "READ",
      approval: "never",
      fingerprint: fingerprint("e"),
      origin: origin("read"),
      currentFingerprint: async () => fingerprint("e"),
      execute: async () => {
        state.sent.push("read");
        return { value: 1 };
      },
    },
  ];
  const prepareTools = async () => {
    state.listings += 1;
    return { definitions: state.listed ? definitions() : [], problems: [] };
  };
  const host = createMemoryRunHost({ prepareTools, ...hostOptions });
  return { state, host, prepareTools };
}

const scenario = buildScenario({
  name: "remote tools",
  mcpServers: ["srv"],
  model: {
    kind: "scripted",
    turns: [
      {
        calls: [
          { id: "w", name: "srv__write", arguments: { text: "hello" } },
          { id: "r", name: "srv__read", arguments: {} },
        ],
      },
      { calls: [{ name: "finish", arguments: { summary: "done" } }] },
    ],
  },
});

async function waitingRun(server: ReturnType<typeof remoteServer>) {
  const { runId, settled } = await server.host.startRun(scenario);
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  const view = await server.host.loadView(runId);
  if (!view?.pending) throw new Error("the run is not waiting");
  return { runId, pending: view.pending };
}

/**
 * Two workers on one store: the first approves the write and dies while it
 * is in flight (from then on none of its store calls return, as from a
 * killed process); `takeOver` lets its lease run out and has a second
 * worker, listing the same server, recover the run.
 */
async function crashWhileWriting(writeEffect: "NON_IDEMPOTENT_WRITE" | "IDEMPOTENT_WRITE") {
  const clock = { now: Date.parse("2026-11-30T08:00:00Z") };
  const store = createMemoryRunStore({ now: () => clock.now });
  let isDead = false;
  const dying = (inner: RunStore): RunStore =>
    Object.fromEntries(
      Object.entries(inner).map(([method, implementation]) => [
        method,
        (...args: unknown[]) =>
          isDead ? new Promise(() => {}) : (implementation as (...a: unknown[]) => unknown)(...args),
      ]),
    ) as unknown as RunStore;
  const server = remoteServer({ store, wrapStore: dying, leaseMs: 1_000, instanceId: "first" });
  server.state.writeEffect = writeEffect;
  const { runId, pending } = await waitingRun(server);
  server.state.hangs = true;
  void server.host.startDecision(runId, { approve: true, turnDigest: pending.turnDigest, actor: "alice" });
  await expect.poll(() => server.state.sent.length).toBe(1);
  isDead = true;
  server.state.hangs = false;
  const second = createMemoryRunHost({
    store,
    prepareTools: server.prepareTools,
    leaseMs: 1_000,
    instanceId: "second",
  });
  return {
    server,
    runId,
    second,
    async takeOver() {
      clock.now += 1_001;
      const [recovery] = await second.recoverExpiredRuns();
      return recovery?.settled;
    },
  };
}

describe("an approval is bound to the definition of the tool that was shown", () => {
  it("puts each call's tool fingerprint in the pending turn and its digest, with the definition shown", async () => {
    const server = remoteServer();
    const { pending } = await waitingRun(server);
    expect(pending.calls.map((call) => call.toolFingerprint)).toEqual([fingerprint("a"), fingerprint("e")]);
    expect(pending.tools?.map((tool) => [tool.name, tool.fingerprint, tool.description])).toEqual([
      ["srv__write", fingerprint("a"), "Writes (definition a)"],
      ["srv__read", fingerprint("e"), "Reads"],
    ]);
    const withoutFingerprints = pending.calls.map(({ toolFingerprint: _, ...call }) => call);
    expect(pending.turnDigest).toBe(computeTurnDigest(pending.calls));
    expect(pending.turnDigest).not.toBe(computeTurnDigest(withoutFingerprints));
  });

  it("runs the approved call when the definition is unchanged", async () => {
    const server = remoteServer();
    const { runId, pending } = await waitingRun(server);
    const decided = await server.host.decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
    });
    expect(decided.status).toBe("COMPLETED");
    expect(server.state.sent).toEqual(['write {"text":"hello"}', "read"]);
  });

  it("never sends a call whose tool changed after the approval: tool_changed, the rest invalidated, the approval voided in the audit", async () => {
    const server = remoteServer();
    const { runId, pending } = await waitingRun(server);
    // The server changes the tool's description after the person saw it ("rug pull").
    server.state.writeFingerprint = fingerprint("b");
    const decided = await server.host.decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
    });
    expect(decided.status).toBe("COMPLETED");
    expect(server.state.sent).toEqual([]);

    const report = await server.host.getReport(runId);
    const [write, read] = report?.steps[0]?.calls ?? [];
    expect(write).toMatchObject({ status: "error", error: { code: TOOL_CHANGED } });
    expect(write?.error?.message).toMatch(/changed its definition/);
    expect(read).toMatchObject({ status: "invalidated" });
    const approvals = await server.host.store.listApprovals(runId);
    const voided = approvals.find((row) => row.kind === "voided");
    expect(voided).toMatchObject({
      approve: false,
      toolName: "srv__write",
      grantedBy: approvals.find((row) => row.kind === "decision")?.decisionId,
      reason: expect.stringMatching(/changed its definition/),
    });
    const view = await server.host.loadView(runId);
    expect(view?.decisions.map((decision) => decision.outcome)).toEqual(["executed", "voided"]);
  });

  it("holds an edited approval to the definition that was shown, not the one listed at the decision", async () => {
    const server = remoteServer();
    const { runId, pending } = await waitingRun(server);
    server.state.writeFingerprint = fingerprint("c");
    await server.host.decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
      editedArguments: { text: "edited" },
    });
    expect(server.state.sent).toEqual([]);
    const report = await server.host.getReport(runId);
    expect(report?.steps[0]?.calls[0]).toMatchObject({ error: { code: TOOL_CHANGED } });
  });

  it("does not send a call whose tool its server no longer lists", async () => {
    const server = remoteServer();
    const { runId, pending } = await waitingRun(server);
    server.state.listed = false;
    await server.host.decide(runId, { approve: true, turnDigest: pending.turnDigest, actor: "alice" });
    expect(server.state.sent).toEqual([]);
    const report = await server.host.getReport(runId);
    expect(report?.steps[0]?.calls[0]?.error?.message).toMatch(/no longer offered/);
  });

  it("refuses a digest computed without the fingerprints", async () => {
    const server = remoteServer();
    const { runId, pending } = await waitingRun(server);
    const stripped = computeTurnDigest(pending.calls.map(({ toolFingerprint: _, ...call }) => call));
    await expect(
      server.host.decide(runId, { approve: true, turnDigest: stripped, actor: "alice" }),
    ).rejects.toMatchObject({ code: "stale_turn" });
    expect(server.state.sent).toEqual([]);
  });

  it("refuses to always allow an MCP tool: a grant by name would outlive the definition that was shown", async () => {
    const server = remoteServer();
    const { runId, pending } = await waitingRun(server);
    await expect(
      server.host.decide(runId, {
        approve: true,
        turnDigest: pending.turnDigest,
        actor: "alice",
        alwaysAllow: true,
      }),
    ).rejects.toMatchObject({ code: "invalid_request", message: expect.stringContaining("alwaysAllow") });
    expect(server.state.sent).toEqual([]);
    expect((await server.host.getRun(runId))?.status).toBe("WAITING_FOR_APPROVAL");
  });

  it("a worker that dies while an approved MCP write is in flight: the one that takes over lists the tools again and never sends it twice", async () => {
    const crash = await crashWhileWriting("NON_IDEMPOTENT_WRITE");
    const listingsBefore = crash.server.state.listings;
    expect(await crash.takeOver()).toBe("COMPLETED");
    expect(crash.server.state.listings).toBeGreaterThan(listingsBefore);
    // Sent once, by the worker that died; its outcome is unknown, so it is not sent again.
    expect(crash.server.state.sent).toEqual(['write {"text":"hello"}']);
    const report = await crash.second.getReport(crash.runId);
    expect(report?.steps[0]?.calls[0]).toMatchObject({ status: "error", error: { code: "interrupted" } });
  });

  it("reads the definition again right before the send: a change after the decision's own listing is caught", async () => {
    const server = remoteServer();
    const { runId, pending } = await waitingRun(server);
    // Listed unchanged when the decision is applied, changed by the time the call would go out.
    server.state.changesAtSend = true;
    await server.host.decide(runId, { approve: true, turnDigest: pending.turnDigest, actor: "alice" });
    expect(server.state.sent).toEqual([]);
    const report = await server.host.getReport(runId);
    expect(report?.steps[0]?.calls[0]).toMatchObject({ error: { code: TOOL_CHANGED } });
  });

  it("a worker that dies while an approved, repeatable MCP write is in flight: the one that takes over sends it again only if its definition is the one approved", async () => {
    const crash = await crashWhileWriting("IDEMPOTENT_WRITE");
    // While nobody drives the run, the server redefines the tool.
    crash.server.state.writeFingerprint = fingerprint("b");
    expect(await crash.takeOver()).toBe("COMPLETED");
    expect(crash.server.state.sent).toEqual(['write {"text":"hello"}']);
    const report = await crash.second.getReport(crash.runId);
    expect(report?.steps[0]?.calls[0]).toMatchObject({ status: "error", error: { code: TOOL_CHANGED } });
  });

  it("leaves out a tool from elsewhere that cannot be offered, naming it: a run does not start without it, a waiting one goes on", async () => {
    const server = remoteServer();
    const { runId, pending } = await waitingRun(server);
    const broken: ToolDefinition = {
      name: "srv__broken",
      description: "A schema no validator compiles",
      parameters: { type: "object", properties: { a: { type: "nonsense" } } },
      resourceClass: "pure_read",
      effect: "READ",
      approval: "never",
      fingerprint: fingerprint("f"),
      execute: async () => ({}),
    };
    const original = server.prepareTools;
    const withBroken = async () => {
      const listed = await original();
      return { ...listed, definitions: [...listed.definitions, broken] };
    };
    const host = createMemoryRunHost({ store: server.host.store, prepareTools: withBroken });
    await expect(host.startRun(scenario)).rejects.toMatchObject({
      code: "tool_server_unavailable",
      message: expect.stringContaining("srv__broken cannot be offered"),
    });
    // A decision on a run that already waits still takes effect, without the broken tool.
    const decided = await host.decide(runId, {
      approve: true,
      turnDigest: pending.turnDigest,
      actor: "alice",
    });
    expect(decided.status).toBe("COMPLETED");
    expect(server.state.sent).toEqual(['write {"text":"hello"}', "read"]);
  });
});
