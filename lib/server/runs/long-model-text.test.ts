import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { steps } from "@/db/schema";
import { testDriverName } from "@/db/testing/test-database";
import type { Model, ModelCompletionRequest, RunHost, ScenarioInput } from "@/lib/runtime";
import { MAX_MODEL_TEXT_LENGTH } from "@/lib/runtime/model/cap-model-text";
import { createMemoryRunHost } from "@/lib/runtime/testing/memory-run-host";
import {
  buildScenario,
  openScenarioHarness,
  type ScenarioHarness,
} from "@/lib/server/testing/scenario-harness";

// A model that answers with megabytes of text must not make its run that big, three times over.
const HUGE_TEXT_LENGTH = 1_000_000;
const chatty: ScenarioInput = {
  name: "a model that says too much",
  model: {
    kind: "scripted",
    turns: [
      { text: "placeholder", calls: [{ name: "write_file", arguments: { path: "a.txt", content: "x" } }] },
      { text: "done", calls: [{ name: "finish", arguments: { summary: "done" } }] },
    ],
  },
};
// Built here rather than parsed: a scenario body has its own 2 MiB limit; a real model does not.
const scenario = buildScenario(chatty);
if (scenario.model.kind === "scripted" && scenario.model.turns[0]) {
  scenario.model.turns[0].text = `${"é".repeat(HUGE_TEXT_LENGTH - 1)}!`;
}

const cutText = expect.stringMatching(
  /\n\[… the model's text was cut here: it was 1,000,000 characters long, and a run keeps at most 100,000\]$/,
);

async function expectCapped(service: Pick<RunHost, "startRun" | "getReport" | "decide" | "readEvents">) {
  const { runId, settled } = await service.startRun(scenario);
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  const waiting = await service.getReport(runId);
  const shown = waiting?.steps[0]?.text ?? "";
  expect(shown.length).toBeLessThanOrEqual(MAX_MODEL_TEXT_LENGTH);
  expect(shown).toEqual(cutText);
  expect(shown.startsWith("éééé")).toBe(true);
  const decided = await service.decide(runId, {
    approve: true,
    turnDigest: waiting?.pending?.turnDigest ?? "",
    actor: "ada",
    actorId: null,
  });
  expect(decided.status).toBe("COMPLETED");
  const events = await service.readEvents(runId, 0);
  expect(JSON.stringify(events).length).toBeLessThan(3 * MAX_MODEL_TEXT_LENGTH);
  return runId;
}

describe("a model's text over the limit", () => {
  it("is cut with a marker, and the model is told the text the run kept (in memory)", async () => {
    const asked: ModelCompletionRequest[] = [];
    const host = createMemoryRunHost({
      wrapModel: (model: Model): Model => ({
        ...model,
        complete(request) {
          asked.push(request);
          return model.complete(request);
        },
      }),
    });
    await expectCapped(host);
    const told = asked.at(-1)?.transcript.find((entry) => entry.role === "assistant");
    expect(told?.role === "assistant" ? told.text : null).toEqual(cutText);
  });

  describe(`on ${testDriverName}`, () => {
    let harness: ScenarioHarness;
    beforeAll(async () => {
      harness = await openScenarioHarness();
    });
    afterAll(() => harness?.close());

    it("is stored once per event that announces it, not again in the steps table", async () => {
      const runId = await expectCapped(harness.service);
      const rows = await harness.handle.db
        .select({ text: steps.text })
        .from(steps)
        .where(eq(steps.runId, runId));
      expect(rows).toEqual([{ text: null }, { text: null }]);
    });
  });
});
