import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScenarioHeadless, type StoredRunEvent } from "@/lib/runtime";
import type { ModelEndpoint } from "@/lib/server/config/model-endpoints";
import type { RunService } from "@/lib/server/runs/run-service";
import { COMPLETION_DRAFT_EVENT, pipeCompletionDrafts } from "@/lib/server/streams/pipe-completion-drafts";
import type { SseChannel, SseMessage } from "@/lib/server/streams/sse-channel";
import { linesOf } from "@/lib/server/testing/process-lines";
import {
  buildScenario,
  openScenarioHarness,
  type ScenarioHarness,
} from "@/lib/server/testing/scenario-harness";

// The e2e suite's fake model server (e2e/support/fake-model-server.mjs), which streams when asked
// and holds a stream at a gate until the test releases (or breaks) it.
let model: ChildProcess;
let modelUrl: string;
let harness: ScenarioHarness;

beforeAll(async () => {
  model = spawn(process.execPath, ["e2e/support/fake-model-server.mjs", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  modelUrl = (await linesOf(model).find(/on (http:\/\/\S+)/))[1] ?? "";
  const endpoint = (stream: boolean): ModelEndpoint => ({
    baseURL: modelUrl,
    model: "fake-model",
    timeoutMs: 60_000,
    maxRetries: 0,
    stream,
  });
  harness = await openScenarioHarness({
    modelEndpoints: {
      problem: null,
      endpoints: new Map([
        ["streaming", endpoint(true)],
        ["whole", endpoint(false)],
      ]),
    },
  });
});
afterAll(async () => {
  model?.kill();
  await harness?.close();
});

const gateUrl = () => modelUrl.replace(/\/v1$/, "/gates");

async function openGate(match: string): Promise<string> {
  const response = await fetch(gateUrl(), {
    method: "POST",
    body: JSON.stringify({ match, afterChunks: 2 }),
  });
  return ((await response.json()) as { id: string }).id;
}
const releaseGate = (id: string, how: "release" | "break") =>
  fetch(`${gateUrl()}/${id}/${how}`, { method: "POST" });

const scenarioFor = (endpoint: string, marker: string) =>
  buildScenario({
    name: `streamed ${marker}`,
    workspace: { "notes/todo.md": "- buy milk\n" },
    model: { kind: "openai-compatible", endpoint, prompt: `Add a line to notes/todo.md. (${marker})` },
    decisions: [{ approve: true, actor: "alice" }],
  });

/** A channel that keeps what it is sent, as a page's stream would receive it. */
function recordingChannel() {
  const messages: SseMessage[] = [];
  const waiters: Array<() => void> = [];
  const channel: SseChannel = {
    send: (message) => channel.sendAll([message]),
    sendAll: (sent) => {
      messages.push(...sent);
      for (const wake of waiters.splice(0)) wake();
    },
    whenReady: async () => {},
    close: () => {},
    isClosed: false,
  };
  return {
    channel,
    messages,
    /** Resolves with the first message sent that `matches`, however late it comes. */
    async find(matches: (message: SseMessage) => boolean): Promise<SseMessage> {
      for (;;) {
        const found = messages.find(matches);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

/** The changes up to the first end of a draft (the first step's), the end included. */
function untilFirstEnd<T>(seen: readonly (T | undefined)[]): Array<T | undefined> {
  const end = seen.indexOf(undefined);
  return end === -1 ? [...seen] : seen.slice(0, end + 1);
}

/** Every change of the run's draft in this process, as it happens (the hub tells its followers at once). */
function recordDrafts(runId: string) {
  const drafts = harness.service.completionDrafts;
  const seen: Array<ReturnType<typeof drafts.current>> = [];
  const stop = drafts.follow(runId, () => seen.push(drafts.current(runId)));
  return { seen, stop };
}

/**
 * Runs the scenario headless and hands `whileRunning` the run's id as soon as it exists (the
 * first completion is still being generated when a gate holds it).
 */
async function runObserved(
  scenario: ReturnType<typeof scenarioFor>,
  whileRunning: (runId: string) => Promise<void>,
) {
  const { service } = harness;
  let observing: Promise<void> = Promise.resolve();
  const observed: Pick<RunService, "startRun" | "getRun" | "decide" | "getReport"> = {
    getRun: service.getRun,
    decide: service.decide,
    getReport: service.getReport,
    startRun: async (...args: Parameters<RunService["startRun"]>) => {
      const started = await service.startRun(...args);
      observing = whileRunning(started.runId);
      return started;
    },
  };
  const report = await runScenarioHeadless(observed, scenario);
  await observing;
  return report;
}

/** The run's events without what differs between any two runs (ids, times, durations). */
function comparable(events: readonly StoredRunEvent[]): unknown[] {
  const varying = new Set([
    "runId",
    "at",
    "latencyMs",
    "durationMs",
    "startedAt",
    "finishedAt",
    "name",
    "by",
    "claimToken",
    "instanceId",
  ]);
  return JSON.parse(
    JSON.stringify(
      events.map(({ seq, type, payload }) => ({ seq, type, payload })),
      (key, value) =>
        varying.has(key) || /At$|Ms$/.test(key) || (/Id$/.test(key) && typeof value === "string")
          ? undefined
          : value,
    ),
  );
}

describe("a model endpoint that streams", () => {
  it("shows a subscriber its output before the completion's event, and stores the same events as without streaming", {
    timeout: 120_000,
  }, async () => {
    const gate = await openGate("marker-streamed");
    const seen = recordingChannel();
    let eventsWhileHeld: StoredRunEvent[] = [];
    let streamedRunId = "";
    let drafts: ReturnType<typeof recordDrafts> | undefined;
    const streamed = await runObserved(scenarioFor("streaming", "marker-streamed"), async (runId) => {
      streamedRunId = runId;
      drafts = recordDrafts(runId);
      const stop = pipeCompletionDrafts(harness.service.completionDrafts, runId, seen.channel);
      try {
        // The stream is held after two words: the page has them, and the step is not planned yet.
        const first = await seen.find(
          (message) =>
            message.event === COMPLETION_DRAFT_EVENT && JSON.parse(message.data).text.includes("Let me"),
        );
        expect(JSON.parse(first.data)).toMatchObject({ step: 0, reset: true });
        expect(first.id).toBeUndefined();
        eventsWhileHeld = await harness.events(runId);
        await releaseGate(gate, "release");
      } finally {
        stop();
      }
    });
    expect(streamed.status).toBe("COMPLETED");
    drafts?.stop();
    // The rest followed, tool-call arguments fragment by fragment, then the draft ended with its step.
    const firstStep = untilFirstEnd(drafts?.seen ?? []);
    expect(firstStep.every((draft) => draft === undefined || draft.stepIndex === 0)).toBe(true);
    expect(firstStep.at(-1)).toBeUndefined();
    expect(firstStep.at(-2)).toMatchObject({
      text: "Let me read the notes first.",
      calls: [{ id: "c_read", name: "read_file", arguments: '{"path":"notes/todo.md"}' }],
    });
    expect(
      firstStep.filter((draft) => draft?.calls[0] && draft.calls[0].arguments !== '{"path":"notes/todo.md"}')
        .length,
    ).toBeGreaterThan(0);
    expect(eventsWhileHeld.map((event) => event.type)).not.toContain("step_planned");
    // Nothing of the stream is kept: the draft is gone once its step is planned.
    expect(harness.service.completionDrafts.current(streamedRunId)).toBeUndefined();

    const whole = await runScenarioHeadless(harness.service, scenarioFor("whole", "marker-streamed"));
    expect(whole.status).toBe("COMPLETED");
    expect(comparable(await harness.events(streamedRunId))).toEqual(
      comparable(await harness.events(whole.runId)),
    );
  });

  it("asks again without streaming when the stream breaks, withdrawing what was shown: one completion is stored", {
    timeout: 120_000,
  }, async () => {
    const gate = await openGate("marker-broken");
    const seen = recordingChannel();
    let brokenRunId = "";
    let drafts: ReturnType<typeof recordDrafts> | undefined;
    const report = await runObserved(scenarioFor("streaming", "marker-broken"), async (runId) => {
      brokenRunId = runId;
      drafts = recordDrafts(runId);
      const stop = pipeCompletionDrafts(harness.service.completionDrafts, runId, seen.channel);
      try {
        await seen.find((message) => JSON.parse(message.data).text.includes("Let me"));
        await releaseGate(gate, "break");
      } finally {
        stop();
      }
    });
    expect(report.status).toBe("COMPLETED");
    drafts?.stop();
    // What was shown was withdrawn (a new generation, empty) before the completion was asked for whole.
    const firstStep = untilFirstEnd(drafts?.seen ?? []).map(
      (draft) => draft && [draft.generation, draft.text],
    );
    expect(firstStep.slice(-2)).toEqual([[2, ""], undefined]);
    // Before the break, only what was streamed up to the gate.
    expect(firstStep.slice(0, -2)).toContainEqual([1, "Let me "]);
    expect(
      firstStep.slice(0, -2).every((draft) => draft?.[0] === 1 && "Let me ".startsWith(String(draft[1]))),
    ).toBe(true);
    const whole = await runScenarioHeadless(harness.service, scenarioFor("whole", "marker-broken"));
    expect(report.modelCalls).toBe(whole.modelCalls);
    expect(comparable(await harness.events(brokenRunId))).toEqual(
      comparable(await harness.events(whole.runId)),
    );
  });
});
