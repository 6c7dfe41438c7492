import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunView } from "../events/run-view";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import type { ModelCompletionRequest } from "../model/model";
import { withReplayedTurns } from "../model/with-replayed-turns";
import { parseScenarioJson, validateScenario } from "../scenario/parse-scenario";
import { MAX_SCENARIO_NAME_LENGTH, type Scenario, type ScenarioInput } from "../scenario/scenario-schema";
import { type MemoryHarness, openMemoryHarness } from "../testing/scenario-harness";
import { ForkStepOutOfRangeError, forkRunAsScenario } from "./fork-scenario";

const loadSharedScenario = (fileName: string) =>
  parseScenarioJson(readFileSync(path.join(process.cwd(), "lib", "scenarios", fileName), "utf8"));

let harness: MemoryHarness;
beforeAll(() => {
  harness = openMemoryHarness();
});

async function recorded(scenario: Scenario): Promise<RunView> {
  const report = await runScenarioHeadless(harness.host, scenario);
  const view = await harness.host.loadView(report.runId);
  if (!view) throw new Error("no view");
  return view;
}

/** A forked scenario as the server would accept it: the fork must be a valid scenario as it is. */
function accepted(input: ScenarioInput): Scenario {
  const result = validateScenario(input);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.scenario;
}

const statusesOf = (view: RunView) => view.steps.map((step) => step.calls.map((call) => call.status));

describe("a fork of a recorded run from a step", () => {
  it("from step 1: the recorded turns to edit, no decision taken for you, and where it came from", async () => {
    const original = loadSharedScenario("write-then-read-back.json");
    const view = await recorded(original);
    const fork = forkRunAsScenario(original, view, 1);
    expect(fork.forkedFrom).toEqual({ runId: view.runId, step: 1 });
    expect(fork.scenario.name).toBe(`${original.name} (fork of step 1)`);
    expect(fork.scenario.decisions).toEqual([]);
    const scenario = accepted(fork.scenario);
    expect(
      scenario.model.kind === "scripted" && scenario.model.turns.map((turn) => turn.calls.length),
    ).toEqual([2, 1]);
    // As it is, it waits at the same barrier: the decision is yours.
    expect((await recorded(scenario)).status).toBe("WAITING_FOR_APPROVAL");
    // The "what if": under a cap of 1 the same first answer is sent back to be repaired.
    const forked = await recorded({ ...scenario, limits: { ...scenario.limits, maxParallelToolCalls: 1 } });
    expect(forked.steps[0]?.plan.kind).toBe("repair");
    expect(forked.steps[0]?.plan.problems.map((problem) => problem.code)).toContain("too_many_calls");
    expect(view.steps[0]?.plan.kind).toBe("execute");
  });

  it("from a later step: the decisions before it are replayed, the ones from it on are left out", async () => {
    const original = loadSharedScenario("denied-write-invalidates-rest.json");
    const view = await recorded(original);
    expect(view.steps).toHaveLength(3);
    const fork = forkRunAsScenario(original, view, 2);
    expect(fork.scenario.decisions).toEqual([
      { approve: false, actor: "operator", reason: "never delete user data" },
    ]);
    expect(fork.notes.join(" ")).toMatch(/Steps 1 to 1 replay/);
    // Replayed headless, it goes over the same ground as the original.
    expect(statusesOf(await recorded(accepted(fork.scenario)))).toEqual(statusesOf(view));
    // Forked at the denial's own step, the denial is not taken for you: the fork waits there.
    const atDenial = forkRunAsScenario(original, view, 1);
    expect(atDenial.scenario.decisions).toEqual([]);
    expect((await recorded(accepted(atDenial.scenario))).status).toBe("WAITING_FOR_APPROVAL");
  });

  it("keeps a long name within the limit, so a fork of any run starts as it is", async () => {
    const shared = loadSharedScenario("denied-write-invalidates-rest.json");
    // The limit counts UTF-16 units: 100 emoji are at it, and are never cut in half.
    for (const [name, kept] of [
      ["x".repeat(MAX_SCENARIO_NAME_LENGTH), /^x{182}…$/u],
      [`n${"😀".repeat(99)}`, /^n😀{90}…$/u],
    ] as const) {
      const original = accepted({ ...shared, name });
      const fork = forkRunAsScenario(original, await recorded(original), 2);
      expect(fork.scenario.name.endsWith(" (fork of step 2)")).toBe(true);
      expect(fork.scenario.name.slice(0, -" (fork of step 2)".length)).toMatch(kept);
      expect(accepted(fork.scenario).name).toBe(fork.scenario.name);
    }
    const short = accepted({ ...shared, name: "short" });
    expect(forkRunAsScenario(short, await recorded(short), 2).scenario.name).toBe("short (fork of step 2)");
  });

  it("refuses a step the run does not have, saying which steps it has", async () => {
    const original = loadSharedScenario("write-then-read-back.json");
    const view = await recorded(original);
    for (const step of [0, -1, 3, 1.5, Number.NaN, "1", null]) {
      expect(() => forkRunAsScenario(original, view, step)).toThrow(ForkStepOutOfRangeError);
    }
    expect(() => forkRunAsScenario(original, view, 3)).toThrow(
      `Run ${view.runId} has 2 steps; fork from a step between 1 and 2, not 3.`,
    );
    try {
      forkRunAsScenario(original, view, 9);
    } catch (error) {
      expect(error).toMatchObject({ code: "invalid_request", stepCount: 2, step: 9 });
    }
  });

  it("a real model's run keeps its endpoint and prompt, and replays only the turns before the fork step", async () => {
    const scripted = loadSharedScenario("denied-write-invalidates-rest.json");
    const view = await recorded(scripted);
    const original = accepted({
      ...scripted,
      model: { kind: "openai-compatible", endpoint: "local", prompt: "Tidy the users file.", temperature: 0 },
    });
    const fork = forkRunAsScenario(original, view, 3);
    const scenario = accepted(fork.scenario);
    expect(scenario.model).toEqual({
      kind: "openai-compatible",
      endpoint: "local",
      prompt: "Tidy the users file.",
      temperature: 0,
      replayTurns: view.steps.slice(0, 2).map((step) => ({
        calls: step.calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
      })),
    });
    expect(fork.notes.join(" ")).toMatch(/local endpoint is asked from step 3 on/);
    // From step 1 nothing is replayed: the endpoint is asked from the start.
    const fromStart = accepted(forkRunAsScenario(original, view, 1).scenario);
    expect(fromStart.model.kind === "openai-compatible" && fromStart.model.replayTurns).toBeUndefined();
  });
});

describe("withReplayedTurns", () => {
  it("answers the first completions from the record, then asks the model, which reads them in its transcript", async () => {
    const asked: ModelCompletionRequest[] = [];
    const model = withReplayedTurns(
      [{ text: "recorded", calls: [{ id: "c1", name: "read_file", arguments: "{}" }] }],
      {
        name: "local",
        readsPreamble: true,
        complete: async (request) => {
          asked.push(request);
          return { text: "live", calls: [] };
        },
      },
    );
    expect(model).toMatchObject({ name: "local", readsPreamble: true });
    const first = await model.complete({ transcript: [], tools: [], completionIndex: 0 });
    expect(first).toEqual({ text: "recorded", calls: [{ id: "c1", name: "read_file", arguments: "{}" }] });
    expect(asked).toHaveLength(0);
    const transcript = [{ role: "assistant" as const, text: "recorded", calls: [] }];
    expect(await model.complete({ transcript, tools: [], completionIndex: 1 })).toEqual({
      text: "live",
      calls: [],
    });
    expect(asked.map((request) => request.transcript)).toEqual([transcript]);
  });
});

describe("starting a fork", () => {
  it("records where it came from; a fork of a run nobody can read is refused as reading it, before anything is stored", async () => {
    const original = loadSharedScenario("write-then-read-back.json");
    const view = await recorded(original);
    const fork = accepted(forkRunAsScenario(original, view, 2).scenario);
    const started = await harness.host.startRun(fork, null, {
      forkedFrom: { runId: view.runId, step: 2 },
    });
    await started.settled;
    expect((await harness.host.loadView(started.runId))?.forkedFrom).toEqual({
      runId: view.runId,
      step: 2,
    });

    let created = 0;
    const counting = harness.hostWith((store) => ({
      ...store,
      createRun: (run) => {
        created += 1;
        return store.createRun(run);
      },
    }));
    const missing = "00000000-0000-4000-8000-00000000dead";
    await expect(
      counting.startRun(fork, null, { forkedFrom: { runId: missing, step: 1 } }),
    ).rejects.toMatchObject({ code: "not_found", message: `No run ${missing}.` });
    await expect(
      counting.startRun(fork, null, { forkedFrom: { runId: view.runId, step: 7 } }),
    ).rejects.toBeInstanceOf(ForkStepOutOfRangeError);
    expect(created).toBe(0);
    // Runs that are no fork say so.
    expect(view.forkedFrom).toBeNull();
  });
});
