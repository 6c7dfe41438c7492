import { describe, expect, it } from "vitest";
import type { AgentIdentity } from "../agent/agent-answer";
import { createAgentProtocol } from "../agent/agent-protocol";
import type { Decision } from "../coordinator/decision";
import { createMemoryAgentMailbox } from "../testing/memory-agent-mailbox";
import { createMemoryGrantStore } from "../testing/memory-grant-store";
import { createMemoryRunHost, type MemoryRunHost } from "../testing/memory-run-host";
import { createMemoryRunStore } from "../testing/memory-run-store";
import { buildScenario } from "../testing/scenario-harness";
import type { ToolDefinition } from "../tools/tool-definition";
import type { GrantRequest, NewToolGrant } from "./tool-grant";

const HOUR_MS = 60 * 60 * 1000;
const alice = { id: "u-alice", name: "alice" };
const bob = { id: "u-bob", name: "bob" };

/** One gated write (write_file's declaration asks for approval), then finish. */
const writing = (name: string, path: string) =>
  buildScenario({
    name,
    workspace: {},
    model: {
      kind: "scripted",
      turns: [
        { calls: [{ id: "w", name: "write_file", arguments: { path, content: "x" } }] },
        { calls: [{ name: "finish", arguments: { summary: "done" } }] },
      ],
    },
  });

function openHosts(options: { instances?: number } = {}) {
  const clock = { now: Date.parse("2026-12-01T09:00:00Z") };
  const store = createMemoryRunStore({ now: () => clock.now });
  const grants = createMemoryGrantStore(() => clock.now);
  const contexts = new Map();
  const hosts = Array.from({ length: options.instances ?? 1 }, (_, index) =>
    createMemoryRunHost({
      store,
      contexts,
      grants,
      now: () => clock.now,
      deadlineTimers: false,
      instanceId: `instance-${index}`,
    }),
  );
  return { clock, grants, hosts, host: hosts[0] as MemoryRunHost };
}

/** An agent-scoped grant of `toolName` as stored before agents were told apart by more than their name. */
function grantKeptByNameAlone(toolName: string, agent: string): NewToolGrant {
  return {
    id: crypto.randomUUID(),
    toolName,
    scope: "agent",
    runId: null,
    agent,
    agentOwnerId: null,
    agentOwnerName: null,
    starterId: null,
    condition: null,
    toolFingerprint: null,
    expiresAt: null,
    maxUses: null,
    createdInRunId: crypto.randomUUID(),
    createdById: bob.id,
    createdByName: bob.name,
  };
}

/** Starts a run to its first gate and approves it with `grant`: the grant as stored. */
async function approveWithGrant(
  host: MemoryRunHost,
  grant: GrantRequest,
  options: { scenario?: string; path?: string; starter?: typeof alice } = {},
) {
  const { runId, settled } = await host.startRun(
    writing(options.scenario ?? "writer", options.path ?? "docs/a.md"),
    options.starter ?? alice,
  );
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  const pending = (await host.loadView(runId))?.pending;
  const decision: Decision = {
    approve: true,
    turnDigest: pending?.turnDigest,
    actor: "bob",
    actorId: bob.id,
    grant,
  };
  const result = await host.decide(runId, decision);
  expect(result.status).toBe("COMPLETED");
  if (!result.grant) throw new Error("no grant was stored");
  return { runId, grant: result.grant };
}

/**
 * A later run, of the same scenario as {@link approveWithGrant}'s unless told otherwise: COMPLETED
 * when a grant let its write through, WAITING_FOR_APPROVAL when it is gated.
 */
async function laterRun(
  host: MemoryRunHost,
  options: { scenario?: string; path?: string; starter?: typeof alice } = {},
) {
  const { runId, settled } = await host.startRun(
    writing(options.scenario ?? "writer", options.path ?? "docs/a.md"),
    options.starter === undefined ? alice : options.starter,
  );
  return { runId, status: await settled };
}

describe("a grant's scope", () => {
  it("this run: covers the rest of the run it was given in, and no other run", async () => {
    const { host } = openHosts();
    const { runId, settled } = await host.startRun(
      buildScenario({
        name: "writes twice",
        workspace: {},
        model: {
          kind: "scripted",
          turns: [
            { calls: [{ id: "w1", name: "write_file", arguments: { path: "a.md", content: "x" } }] },
            { calls: [{ id: "w2", name: "write_file", arguments: { path: "b.md", content: "y" } }] },
            { calls: [{ name: "finish", arguments: { summary: "done" } }] },
          ],
        },
      }),
      alice,
    );
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const turnDigest = (await host.loadView(runId))?.pending?.turnDigest;
    const decided = await host.decide(runId, {
      approve: true,
      turnDigest,
      actor: "bob",
      grant: { scope: "run" },
    });
    // The second write ran under the grant: the run did not wait again.
    expect(decided.status).toBe("COMPLETED");
    const grant = decided.grant;
    expect(grant).toMatchObject({
      scope: "run",
      toolName: "write_file",
      condition: null,
      expiresAt: null,
      maxUses: null,
    });
    expect((await laterRun(host)).status).toBe("WAITING_FOR_APPROVAL");
  });

  it("this agent: covers later runs of the same agent (scenario), not another's", async () => {
    const { host } = openHosts();
    const { grant } = await approveWithGrant(host, { scope: "agent" });
    expect(grant.agent).toMatch(/^scenario:writer@[0-9a-f]{64}$/);
    expect((await laterRun(host, { starter: bob })).status).toBe("COMPLETED");
    expect((await laterRun(host, { scenario: "another agent" })).status).toBe("WAITING_FOR_APPROVAL");
  });

  it("this agent: a scenario is the agent by its content, not its name: another script under the same name is another agent", async () => {
    const { host } = openHosts();
    await approveWithGrant(host, { scope: "agent" });
    expect((await laterRun(host, { path: "docs/b.md", starter: bob })).status).toBe("WAITING_FOR_APPROVAL");
    const sameNameMoreTools = buildScenario({
      ...writing("writer", "docs/a.md"),
      tools: [
        {
          name: "send_mail",
          description: "Sends a mail.",
          resourceClass: "write",
          effect: "NON_IDEMPOTENT_WRITE",
          parameters: { type: "object" },
        },
      ],
    });
    const { settled } = await host.startRun(sameNameMoreTools, bob);
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    // The scenario as it was when granted still is that agent, whoever starts it.
    expect((await laterRun(host, { starter: bob })).status).toBe("COMPLETED");
  });

  it("this agent: a grant kept by a scenario's name alone, as before its content was, covers no run", async () => {
    const { host, grants } = openHosts();
    await grants.create(grantKeptByNameAlone("write_file", "scenario:writer"));
    expect((await laterRun(host)).status).toBe("WAITING_FOR_APPROVAL");
  });

  it("this user: covers later runs the same person starts, whatever the agent, not another person's", async () => {
    const { host } = openHosts();
    await approveWithGrant(host, { scope: "user" });
    expect((await laterRun(host, { scenario: "another agent" })).status).toBe("COMPLETED");
    expect((await laterRun(host, { starter: bob })).status).toBe("WAITING_FOR_APPROVAL");
  });

  it("everyone: covers every later run", async () => {
    const { host } = openHosts();
    await approveWithGrant(host, { scope: "everyone" });
    expect((await laterRun(host, { scenario: "another agent", starter: bob })).status).toBe("COMPLETED");
  });
});

describe("a grant for an outside agent's runs", () => {
  const ana: AgentIdentity = { tokenId: "token-ana", tokenName: "ci", ownerId: "u-ana", ownerName: "Ana" };
  const anaRotated: AgentIdentity = { ...ana, tokenId: "token-ana-2", tokenName: "ci rotated" };
  // Another person's token, sending the same agent name.
  const bo: AgentIdentity = { tokenId: "token-bo", tokenName: "ci", ownerId: "u-bo", ownerName: "Bo" };

  function agentHost() {
    const mailbox = createMemoryAgentMailbox();
    const grants = createMemoryGrantStore();
    const host = createMemoryRunHost({ agents: { mailbox, pollMs: 5 }, grants, deadlineTimers: false });
    return { host, grants, protocol: createAgentProtocol({ host, mailbox, pollMs: 5 }) };
  }

  /** Opens a run of the agent "grant-agent" with `token` and submits a gated write: where the run then stands. */
  async function writeAs(protocol: ReturnType<typeof agentHost>["protocol"], token: AgentIdentity) {
    const { runId } = await protocol.openRun(
      {
        name: "agent writes",
        agent: { name: "grant-agent" },
        tools: [
          {
            name: "write_note",
            description: "Writes a note.",
            resourceClass: "write",
            effect: "NON_IDEMPOTENT_WRITE",
            approval: "always",
            parameters: { type: "object" },
          },
        ],
      },
      token,
    );
    const answer = await protocol.submitTurn(
      runId,
      token,
      { turn: 0, text: null, calls: [{ id: "w", name: "write_note", arguments: "{}" }] },
      { waitMs: 10_000 },
    );
    return { runId, answer };
  }

  it("covers later runs of the same owner's agent of that name, with any of their tokens, not another person's", async () => {
    const { host, protocol } = agentHost();
    const first = await writeAs(protocol, ana);
    expect(first.answer.waitingFor).toBe("approval");
    const decided = await host.decide(first.runId, {
      approve: true,
      turnDigest: (await host.loadView(first.runId))?.pending?.turnDigest,
      actor: "bob",
      actorId: bob.id,
      grant: { scope: "agent" },
    });
    expect(decided.grant).toMatchObject({
      scope: "agent",
      agent: "agent:grant-agent",
      agentOwnerId: "u-ana",
      agentOwnerName: "Ana",
    });

    const others = await writeAs(protocol, bo);
    expect(others.answer.waitingFor).toBe("approval");
    expect(await host.store.listApprovals(others.runId)).toEqual([]);

    for (const token of [ana, anaRotated]) {
      const later = await writeAs(protocol, token);
      expect(later.answer).toMatchObject({ next: "execute", waitingFor: null });
      expect(later.answer.releases.map((release) => release.callId)).toEqual(["w"]);
    }
  });

  it("a grant kept by the agent's name alone, as before owners were, covers no outside agent's run", async () => {
    const { protocol, grants } = agentHost();
    await grants.create(grantKeptByNameAlone("write_note", "agent:grant-agent"));
    expect((await writeAs(protocol, ana)).answer.waitingFor).toBe("approval");
  });
});

describe("a grant's condition", () => {
  it("lets through the calls it matches and gates the others", async () => {
    const { host } = openHosts();
    await approveWithGrant(host, { scope: "everyone", condition: 'args.path.startsWith("docs/")' });
    expect((await laterRun(host, { path: "docs/b.md" })).status).toBe("COMPLETED");
    expect((await laterRun(host, { path: "src/b.ts" })).status).toBe("WAITING_FOR_APPROVAL");
  });

  it("is checked like a policy rule: one naming an unknown field is refused by name, and nothing is decided", async () => {
    const { host } = openHosts();
    const { runId, settled } = await host.startRun(writing("writer", "docs/a.md"), alice);
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const pending = (await host.loadView(runId))?.pending;
    await expect(
      host.decide(runId, {
        approve: true,
        turnDigest: pending?.turnDigest,
        actor: "bob",
        grant: { scope: "agent", condition: "call.nonsense == 1" },
      }),
    ).rejects.toMatchObject({ code: "invalid_request", field: "grant.condition" });
    expect((await host.loadView(runId))?.status).toBe("WAITING_FOR_APPROVAL");
  });
});

describe("a grant's limits", () => {
  it("expires on the clock: gated again once its time is up", async () => {
    const { host, clock } = openHosts();
    await approveWithGrant(host, { scope: "everyone", expiresInSeconds: 8 * 60 * 60 });
    clock.now += 8 * HOUR_MS - 1000;
    expect((await laterRun(host)).status).toBe("COMPLETED");
    clock.now += 1000;
    expect((await laterRun(host)).status).toBe("WAITING_FOR_APPROVAL");
  });

  it("runs out of uses: each call it lets through takes one", async () => {
    const { host, grants } = openHosts();
    const { grant } = await approveWithGrant(host, { scope: "everyone", maxUses: 2 });
    expect((await laterRun(host)).status).toBe("COMPLETED");
    expect((await laterRun(host)).status).toBe("COMPLETED");
    expect((await laterRun(host)).status).toBe("WAITING_FOR_APPROVAL");
    expect((await grants.get(grant.id))?.uses).toBe(2);
  });

  it("two instances racing for the last use: exactly one run goes ungated", async () => {
    const { hosts } = openHosts({ instances: 2 });
    const [first, second] = hosts as [MemoryRunHost, MemoryRunHost];
    await approveWithGrant(first, { scope: "everyone", maxUses: 1 });
    const statuses = await Promise.all([laterRun(first), laterRun(second)]);
    expect(statuses.map((run) => run.status).sort()).toEqual(["COMPLETED", "WAITING_FOR_APPROVAL"]);
  });

  it("revoked: gated again from the next call", async () => {
    const { host, grants } = openHosts();
    const { grant } = await approveWithGrant(host, { scope: "everyone" });
    expect((await laterRun(host)).status).toBe("COMPLETED");
    await grants.revoke(grant.id, bob, new Date());
    expect((await laterRun(host)).status).toBe("WAITING_FOR_APPROVAL");
  });
});

describe("the audit", () => {
  it("audits each call a grant let through as an automatic approval naming the grant", async () => {
    const { host } = openHosts();
    const { grant } = await approveWithGrant(host, {
      scope: "agent",
      condition: 'args.path.startsWith("docs/")',
    });
    const { runId } = await laterRun(host);
    const rows = await host.store.listApprovals(runId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: "automatic",
      approve: true,
      toolName: "write_file",
      grantedBy: grant.id,
      actor: `grant ${grant.id.slice(0, 8)} by bob`,
      actorId: bob.id,
    });
  });
});

describe("a grant for an MCP tool", () => {
  const fingerprint = (letter: string) => letter.repeat(64);
  function remoteHost() {
    const server = { fingerprint: fingerprint("a") };
    const definitions = (): ToolDefinition[] => [
      {
        name: "srv__write",
        description: "Writes",
        parameters: { type: "object", properties: { text: { type: "string" } } },
        resourceClass: "write",
        effect: "NON_IDEMPOTENT_WRITE",
        approval: "always",
        fingerprint: server.fingerprint,
        origin: {
          kind: "mcp",
          server: "srv",
          trust: "trusted",
          serverToolName: "write",
          annotations: null,
          outputSchema: null,
          basis: "test",
        },
        currentFingerprint: async () => server.fingerprint,
        execute: async () => ({ ok: true }),
      },
    ];
    const host = createMemoryRunHost({
      grants: createMemoryGrantStore(),
      deadlineTimers: false,
      prepareTools: async () => ({ definitions: definitions(), problems: [] }),
    });
    const scenario = buildScenario({
      name: "remote",
      mcpServers: ["srv"],
      model: {
        kind: "scripted",
        turns: [
          { calls: [{ id: "w", name: "srv__write", arguments: { text: "hello" } }] },
          { calls: [{ name: "finish", arguments: { summary: "done" } }] },
        ],
      },
    });
    return { server, host, scenario };
  }

  it("names the approved definition and covers nothing once the server changed it", async () => {
    const { server, host, scenario } = remoteHost();
    const first = await host.startRun(scenario, alice);
    expect(await first.settled).toBe("WAITING_FOR_APPROVAL");
    const pending = (await host.loadView(first.runId))?.pending;
    const result = await host.decide(first.runId, {
      approve: true,
      turnDigest: pending?.turnDigest,
      actor: "bob",
      grant: { scope: "agent" },
    });
    expect(result.grant?.toolFingerprint).toBe(fingerprint("a"));
    expect(await (await host.startRun(scenario, alice)).settled).toBe("COMPLETED");
    server.fingerprint = fingerprint("b");
    expect(await (await host.startRun(scenario, alice)).settled).toBe("WAITING_FOR_APPROVAL");
  });
});

describe("where a grant may not be given", () => {
  it("refuses a grant with a denial, and beside alwaysAllow", async () => {
    const { host } = openHosts();
    const { runId, settled } = await host.startRun(writing("writer", "docs/a.md"), alice);
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const turnDigest = (await host.loadView(runId))?.pending?.turnDigest;
    await expect(
      host.decide(runId, { approve: false, turnDigest, actor: "bob", grant: { scope: "run" } }),
    ).rejects.toMatchObject({ code: "invalid_request", field: "grant" });
    await expect(
      host.decide(runId, {
        approve: true,
        turnDigest,
        actor: "bob",
        alwaysAllow: true,
        grant: { scope: "run" },
      }),
    ).rejects.toMatchObject({ code: "invalid_request", field: "grant" });
  });
});
