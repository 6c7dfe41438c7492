import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDriverName } from "@/db/testing/test-database";
import { applyRunEvent, classifyEvent, foldRunEvents, type RunView } from "@/lib/run-view/run-view";
import { runScenarioHeadless } from "./run-scenario-headless";
import { loadSharedScenario, openScenarioHarness, type ScenarioHarness } from "./testing/scenario-harness";

let harness: ScenarioHarness;
beforeAll(async () => {
  harness = await openScenarioHarness();
});
afterAll(() => harness?.close());

const SHARED = [
  "fourteen-reads-cap-eight.json",
  "write-then-read-back.json",
  "denied-write-invalidates-rest.json",
  "two-gates-in-one-batch.json",
  "oversized-batch-with-approval.json",
];

/** The fields a call has both in the view and in the report. */
const comparable = (call: {
  batchIndex: number;
  id: string;
  name: string;
  status: string;
  result: unknown;
  error: unknown;
}) => ({
  batchIndex: call.batchIndex,
  id: call.id,
  name: call.name,
  status: call.status,
  result: call.result,
  error: call.error,
});

// The run page is a fold of events; the report is read from the tables. If
// they ever disagree, the page shows a run that is not the one stored.
describe(`the live run view agrees with the stored run on ${testDriverName}`, () => {
  it.each(SHARED)("%s: every step, call, plan and decision", async (fileName) => {
    const report = await runScenarioHeadless(harness.service, loadSharedScenario(fileName));
    const view = await harness.service.loadView(report.runId);
    if (!view) throw new Error("no view");
    expect(view.status).toBe(report.status);
    expect(view.name).toBe(report.name);
    expect(view.steps.map((step) => step.index)).toEqual(report.steps.map((step) => step.index));
    for (const [position, step] of report.steps.entries()) {
      const viewed = view.steps[position];
      expect(viewed?.plan).toEqual(step.plan);
      expect(viewed?.metrics).toEqual(step.metrics);
      expect(viewed?.isFinished).toBe(true);
      expect(viewed?.calls.map(comparable)).toEqual(step.calls.map(comparable));
    }
    expect(view.decisions.map(({ approve, actor, outcome }) => ({ approve, actor, outcome }))).toEqual(
      report.decisions.map(({ approve, actor, outcome }) => ({ approve, actor, outcome })),
    );
    expect(view.log.map((entry) => entry.seq)).toEqual(view.log.map((_, index) => index + 1));
  });

  it("a waiting run shows its pending turn and digest, and loses them once decided", async () => {
    const scenario = { ...loadSharedScenario("write-then-read-back.json"), decisions: [] };
    const waiting = await runScenarioHeadless(harness.service, scenario);
    const view = await harness.service.loadView(waiting.runId);
    expect(view?.status).toBe("WAITING_FOR_APPROVAL");
    expect(view?.pending).toEqual({ stepIndex: 0, ...waiting.pending });
    expect(view?.steps[0]?.calls.map((call) => call.status)).toEqual(["pending", "pending"]);

    await harness.service.decide(waiting.runId, {
      approve: true,
      turnDigest: waiting.pending?.turnDigest,
      actor: "alice",
    });
    const decided = await harness.service.loadView(waiting.runId);
    expect(decided?.pending).toBeNull();
    expect(decided?.status).toBe("COMPLETED");
    expect(decided?.steps[0]?.calls[1]?.result).toEqual(
      expect.objectContaining({ content: '{"debug": true}\n' }),
    );
  });

  it("a cancelled waiting turn clears the pending turn although no decision was made", async () => {
    const scenario = { ...loadSharedScenario("write-then-read-back.json"), decisions: [] };
    const waiting = await runScenarioHeadless(harness.service, scenario);
    await harness.service.cancel(waiting.runId, "run");
    const view = await harness.service.loadView(waiting.runId);
    expect(view).toMatchObject({ status: "CANCELLED", pending: null, decisions: [] });
    expect(view?.steps[0]?.calls.map((call) => call.status)).toEqual(["invalidated", "invalidated"]);
  });

  it("folding replays is idempotent and gaps are recognised, not folded over", async () => {
    const report = await runScenarioHeadless(
      harness.service,
      loadSharedScenario("fourteen-reads-cap-eight.json"),
    );
    const events = await harness.service.readEvents(report.runId, 0);
    const once = foldRunEvents(report.runId, events);
    const twice = events.reduce(applyRunEvent, once);
    expect(twice).toBe(once);

    const partial: RunView = foldRunEvents(report.runId, events.slice(0, 3));
    expect(classifyEvent(partial, 3)).toBe("duplicate");
    expect(classifyEvent(partial, 4)).toBe("next");
    expect(classifyEvent(partial, 6)).toBe("gap");
    // Resuming after the last seen seq yields exactly the rest.
    const rest = await harness.service.readEvents(report.runId, partial.lastSeq);
    expect(rest.reduce(applyRunEvent, partial)).toEqual(once);
  });

  it("an unknown run has no view", async () => {
    expect(await harness.service.loadView("00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});
