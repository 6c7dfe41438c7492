import { describe, expect, it } from "vitest";
import { createMemoryAgentMailbox } from "../testing";
import type { AgentMailbox } from "./agent-mailbox";
import { createAgentModel } from "./agent-model";

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
});
