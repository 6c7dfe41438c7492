import { describe, expect, it } from "vitest";
import { createMemoryAgentMailbox } from "../testing";
import type { AgentMailbox } from "./agent-mailbox";
import { createAgentModel } from "./agent-model";
import { createAgentTool } from "./agent-tool";

describe("an agent's waits", () => {
  it("a turn read that fails is tried again, not the run's end", async () => {
    const mailbox = createMemoryAgentMailbox();
    let failures = 2;
    const flaky: AgentMailbox = {
      ...mailbox,
      readTurn: async (runId, turn) => {
        if (failures > 0) {
          failures -= 1;
          throw new Error("connection refused");
        }
        return mailbox.readTurn(runId, turn);
      },
    };
    await mailbox.storeTurn({ runId: "r", turn: 0, digest: "d", text: "hi", calls: [], usage: null });
    const model = createAgentModel("r", { mailbox: flaky, pollMs: 1 });
    expect(await model.complete({ transcript: [], tools: [], completionIndex: 0 })).toMatchObject({
      text: "hi",
    });
    expect(failures).toBe(0);
  });

  it("a turn stored just after a read found none wakes the wait at once, not after the poll", async () => {
    const mailbox = createMemoryAgentMailbox();
    let stored = false;
    const racing: AgentMailbox = {
      ...mailbox,
      // The agent's turn lands while the model's read is on its way back, empty.
      readTurn: async (runId, turn) => {
        const found = await mailbox.readTurn(runId, turn);
        if (!stored) {
          stored = true;
          await mailbox.storeTurn({ runId, turn, digest: "d", text: "hi", calls: [], usage: null });
        }
        return found;
      },
    };
    // A poll no test outlives: the turn is found only if its store woke the wait.
    const model = createAgentModel("r", { mailbox: racing, pollMs: 3_600_000 });
    expect(await model.complete({ transcript: [], tools: [], completionIndex: 0 })).toMatchObject({
      text: "hi",
    });
  });

  it("a report that lands as its release is stored wakes the call at once, not after the poll", async () => {
    const mailbox = createMemoryAgentMailbox();
    const racing: AgentMailbox = {
      ...mailbox,
      // The agent sees the release and reports before the worker's write has come back to it.
      createRelease: async (release) => {
        const created = await mailbox.createRelease(release);
        await mailbox.closeRelease(release.token, {
          state: "reported",
          report: { ok: true, result: { found: 1 } },
          reportDigest: "d",
        });
        return created;
      },
    };
    // A poll no test outlives: the report is taken only if it woke the call's wait.
    const tool = createAgentTool(
      {
        name: "lookup",
        description: "",
        resourceClass: "pure_read",
        effect: "READ",
        approval: "never",
        parameters: { type: "object" },
      },
      { mailbox: racing, releaseLeaseMs: 60_000, pollMs: 3_600_000, now: Date.now },
    );
    const call = { runId: "r", stepIndex: 0, batchIndex: 0, id: "c0", name: "lookup", arguments: "{}" };
    const context = { signal: new AbortController().signal, call } as unknown as Parameters<
      typeof tool.execute
    >[1];
    expect(await tool.execute({}, context)).toEqual({ found: 1 });
  });
});
