import { describe, expect, it } from "vitest";
import { createMemoryRunHost } from "../testing/memory-run-host";
import { buildScenario } from "../testing/scenario-harness";
import type { ToolDefinition } from "../tools/tool-definition";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A long read that reports how far it is: once, then (after a pause) three times in a burst. */
const longRead: ToolDefinition = {
  name: "long_read",
  description: "Reads slowly, saying how far it is",
  parameters: { type: "object" },
  resourceClass: "pure_read",
  effect: "READ",
  approval: "never",
  async execute(_args, context) {
    context.reportProgress?.({ progress: 1, total: 4, message: "opened" });
    await pause(600);
    context.reportProgress?.({ progress: 2, total: 4 });
    context.reportProgress?.({ progress: 3, total: 4 });
    context.reportProgress?.({ progress: 4, total: 4, message: "almost" });
    await pause(1_500);
    return { done: true };
  },
};

describe("a running call's progress", () => {
  it("is announced as call_progress events, at most one every half second, the latest of a burst kept", async () => {
    const host = createMemoryRunHost({
      prepareTools: async () => ({ definitions: [longRead], problems: [] }),
    });
    const { runId, settled } = await host.startRun(
      buildScenario({
        name: "progress",
        model: {
          kind: "scripted",
          turns: [
            { calls: [{ name: "long_read", arguments: {} }] },
            { calls: [{ name: "finish", arguments: { summary: "done" } }] },
          ],
        },
      }),
    );
    await expect
      .poll(async () => (await host.loadView(runId))?.steps[0]?.calls[0]?.progress?.progress, {
        timeout: 5_000,
      })
      .toBe(4);
    expect(await settled).toBe("COMPLETED");
    const events = await host.readEvents(runId, 0);
    const reports = events.flatMap((event) => (event.type === "call_progress" ? [event.payload] : []));
    expect(reports.map(({ progress, total, message }) => [progress, total, message])).toEqual([
      [1, 4, "opened"],
      [2, 4, null],
      [4, 4, "almost"],
    ]);
    const settledAt = events.findIndex((event) => event.type === "call_settled");
    expect(events.findLastIndex((event) => event.type === "call_progress")).toBeLessThan(settledAt);
  });
});
