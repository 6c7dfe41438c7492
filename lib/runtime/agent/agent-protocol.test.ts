import { describe, expect, it } from "vitest";
import { parseScenarioValue } from "../scenario/parse-scenario";
import { createMemoryAgentMailbox, createMemoryRunHost } from "../testing";
import { createMemoryRunStore } from "../testing/memory-run-store";
import { createAgentProtocol } from "./agent-protocol";
import { describeAgentProtocolContract } from "./agent-protocol.contract";

describeAgentProtocolContract("memory", async () => {
  const clock = { offset: 0 };
  const now = () => Date.now() + clock.offset;
  const store = createMemoryRunStore({ now });
  const mailbox = createMemoryAgentMailbox();
  const contexts = new Map();
  const host = (instanceId: string) =>
    createMemoryRunHost({
      store,
      contexts,
      instanceId,
      now,
      deadlineTimers: false,
      agents: { mailbox, pollMs: 10 },
    });
  return {
    hosts: [host("a"), host("b")],
    mailbox,
    clock,
    // The store's clock is the hosts': moving it past the run's lease (60 s) ends it.
    expireRunLease: async () => {
      clock.offset += 120_000;
    },
    close: async () => {},
  };
});

describe("an agent's run exported", () => {
  it("replays as a scripted scenario whose declared tools answer with what the agent reported", async () => {
    const mailbox = createMemoryAgentMailbox();
    const host = createMemoryRunHost({ agents: { mailbox, pollMs: 5 }, deadlineTimers: false });
    const protocol = createAgentProtocol({ host, mailbox, pollMs: 5 });
    const agent = { tokenId: "t", tokenName: "ci", ownerId: "u", ownerName: "Ana" };
    const { runId } = await protocol.openRun(
      {
        name: "exported",
        agent: { name: "bot" },
        tools: [
          {
            name: "search",
            description: "",
            resourceClass: "pure_read",
            effect: "READ",
            approval: "never",
            parameters: { type: "object" },
          },
        ],
      },
      agent,
    );
    let state = await protocol.submitTurn(
      runId,
      agent,
      { turn: 0, text: "look", calls: [{ id: "s", name: "search", arguments: '{"q": "x"}' }] },
      { waitMs: 10_000 },
    );
    for (const release of state.releases) {
      await protocol.report(runId, agent, {
        releaseToken: release.releaseToken,
        ok: true,
        result: { hits: 7 },
      });
    }
    state = await protocol.next(runId, agent, { waitMs: 10_000, after: state.version });
    while (state.next !== "submit_turn")
      state = await protocol.next(runId, agent, { waitMs: 10_000, after: state.version });
    const finished = await protocol.submitTurn(
      runId,
      agent,
      { turn: 1, text: "done", calls: [{ id: "f", name: "finish", arguments: '{"summary":"7 hits"}' }] },
      { waitMs: 10_000 },
    );
    expect(finished.status).toBe("COMPLETED");

    const exported = await host.exportScenario(runId);
    expect(exported?.scenario.model).toEqual({
      kind: "scripted",
      turns: [
        { text: "look", calls: [{ id: "s", name: "search", arguments: '{"q": "x"}' }] },
        { text: "done", calls: [{ id: "f", name: "finish", arguments: '{"summary":"7 hits"}' }] },
      ],
    });
    expect(exported?.scenario.tools?.[0]).toMatchObject({ name: "search", result: { hits: 7 } });
    const replay = await host.startRun(parseScenarioValue(exported?.scenario));
    expect(await replay.settled).toBe("COMPLETED");
  });
});
