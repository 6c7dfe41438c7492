import { describe, expect, it } from "vitest";
import type { RunStore } from "../run/run-store";
import { parseScenarioValue } from "../scenario/parse-scenario";
import { createMemoryAgentMailbox, createMemoryRunHost } from "../testing";
import { createMemoryRunStore } from "../testing/memory-run-store";
import { createAgentProtocol } from "./agent-protocol";
import { describeAgentProtocolContract } from "./agent-protocol.contract";

/** A read the agent runs itself, for the tests below that need one. */
const search = {
  name: "search",
  description: "",
  resourceClass: "pure_read",
  effect: "READ",
  approval: "never",
  parameters: { type: "object" },
} as const;

describeAgentProtocolContract("memory", async () => {
  const clock = { offset: 0 };
  const now = () => Date.now() + clock.offset;
  const store = createMemoryRunStore({ now });
  const mailbox = createMemoryAgentMailbox();
  const contexts = new Map();
  const host = (instanceId: string, wrapStore?: (store: RunStore) => RunStore) =>
    createMemoryRunHost({
      store,
      ...(wrapStore ? { wrapStore } : {}),
      contexts,
      instanceId,
      now,
      deadlineTimers: false,
      agents: { mailbox, pollMs: 10 },
    });
  return {
    hosts: [host("a"), host("b")],
    hostOver: (wrap) => host("c", wrap),
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
        tools: [search],
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

describe("what an agent's wave costs the mailbox", () => {
  const agent = { tokenId: "t", tokenName: "ci", ownerId: "u", ownerName: "Ana" };
  const lookup = {
    name: "lookup",
    description: "",
    resourceClass: "pure_read" as const,
    effect: "READ" as const,
    approval: "never" as const,
    parameters: { type: "object" as const },
  };
  const wave = (size: number) =>
    Array.from({ length: size }, (_, index) => ({
      id: `c${index}`,
      name: "lookup",
      arguments: `{"k":${index}}`,
    }));

  it("a report wakes only the worker waiting on its own call: a wave of 8 reads each release about once", async () => {
    const mailbox = createMemoryAgentMailbox();
    let workerReads = 0;
    // The worker's view of the mailbox, counted; the protocol's reads (one per report) are not.
    const counted = {
      ...mailbox,
      readRelease: (token: string) => {
        workerReads += 1;
        return mailbox.readRelease(token);
      },
    };
    // The worker's polls far apart: every read it makes is one a wake-up caused. (The protocol's
    // long polls read often: without a run watcher here, they learn of the outcome by reading.)
    const host = createMemoryRunHost({ agents: { mailbox: counted, pollMs: 5_000 }, deadlineTimers: false });
    const protocol = createAgentProtocol({ host, mailbox, pollMs: 10 });
    const { runId } = await protocol.openRun(
      { name: "a wave", agent: { name: "bot" }, tools: [lookup], limits: { maxParallelToolCalls: 8 } },
      agent,
    );
    let state = await protocol.submitTurn(
      runId,
      agent,
      { turn: 0, text: null, calls: wave(8) },
      { waitMs: 10_000 },
    );
    expect(state.releases).toHaveLength(8);
    for (const release of state.releases) {
      await protocol.report(runId, agent, { releaseToken: release.releaseToken, ok: true, result: {} });
    }
    while (state.next !== "submit_turn")
      state = await protocol.next(runId, agent, { waitMs: 10_000, after: state.version });
    // One read per call once its report came (a run-wide wake-up read every open call at every report: 44).
    expect(workerReads).toBeLessThanOrEqual(8);
  });

  it("reports renew the run's leases once per quarter lease; a heartbeat always does", async () => {
    const mailbox = createMemoryAgentMailbox();
    let renewals = 0;
    const counted = {
      ...mailbox,
      renewLeases: (runId: string, until: string) => {
        renewals += 1;
        return mailbox.renewLeases(runId, until);
      },
    };
    const clock = { offset: 0 };
    const now = () => Date.now() + clock.offset;
    const host = createMemoryRunHost({ agents: { mailbox, pollMs: 10 }, deadlineTimers: false, now });
    const protocol = createAgentProtocol({ host, mailbox: counted, pollMs: 10, now });
    const { runId } = await protocol.openRun(
      {
        name: "leases",
        agent: { name: "bot" },
        tools: [lookup],
        limits: { maxParallelToolCalls: 8 },
        releaseLeaseSeconds: 60,
      },
      agent,
    );
    const state = await protocol.submitTurn(
      runId,
      agent,
      { turn: 0, text: null, calls: wave(4) },
      { waitMs: 10_000 },
    );
    const [first, second, third, fourth] = state.releases;
    const report = (release: typeof first) =>
      protocol.report(runId, agent, { releaseToken: release?.releaseToken ?? "", ok: true, result: {} });
    await report(first);
    await report(second);
    expect(renewals).toBe(1);
    // A quarter of the 60 s lease later, the next report renews the two still open.
    clock.offset += 15_001;
    await report(third);
    expect(renewals).toBe(2);
    const [open] = (await mailbox.listReleases(runId)).filter((release) => release.state === "released");
    expect(Date.parse(open?.leaseExpiresAt ?? "")).toBeGreaterThanOrEqual(now() + 59_000);
    await protocol.heartbeat(runId, agent);
    expect(renewals).toBe(3);
    await report(fourth);
    expect(renewals).toBe(3);
  });
});

describe("an answer read while a wave is being released", () => {
  it("gives the whole wave or a wait, never the releases made so far", async () => {
    const mailbox = createMemoryAgentMailbox();
    const host = createMemoryRunHost({ agents: { mailbox, pollMs: 5 }, deadlineTimers: false });
    const protocol = createAgentProtocol({ host, mailbox, pollMs: 5 });
    const agent = { tokenId: "t", tokenName: "ci", ownerId: "u", ownerName: "Ana" };
    const { runId } = await protocol.openRun(
      { name: "two reads", agent: { name: "bot" }, tools: [search] },
      agent,
    );
    const calls = ["s1", "s2"].map((id) => ({ id, name: "search", arguments: "{}" }));
    const whole = await protocol.submitTurn(runId, agent, { turn: 0, text: null, calls }, { waitMs: 10_000 });
    expect(whole.releases.map((release) => release.callId)).toEqual(["s1", "s2"]);

    // The same turn at two moments: before its wave started (both calls pending, nothing released),
    // and once the wave has started and its first call is released. The run moves from one to the
    // other right after the answer's first read, whichever read that is.
    const started = await host.loadView(runId);
    if (!started) throw new Error("no view");
    const last = started.steps.length - 1;
    const beforeTheWave = {
      ...started,
      steps: started.steps.map((step, index) =>
        index === last
          ? { ...step, calls: step.calls.map((call) => ({ ...call, status: "pending" as const })) }
          : step,
      ),
    };
    const firstReleased = (await mailbox.listReleases(runId)).filter((release) => release.callId === "s1");
    let hasMoved = false;
    const asRead = <T>(before: T, after: T): T => {
      const value = hasMoved ? after : before;
      hasMoved = true;
      return value;
    };
    const duringTheWave = createAgentProtocol({
      host: { ...host, loadView: async () => asRead(beforeTheWave, started) },
      mailbox: { ...mailbox, listReleases: async () => asRead([], firstReleased) },
      pollMs: 5,
    });

    const answer = await duringTheWave.next(runId, agent, { waitMs: 0 });
    expect(answer.releases.map((release) => release.callId)).not.toEqual(["s1"]);
    expect(answer).toMatchObject({ next: "wait", waitingFor: "server" });
  });
});
