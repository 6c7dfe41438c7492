import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { applyRunEvent, emptyRunView, type RunView } from "../events/run-view";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import { parseScenarioJson } from "../scenario/parse-scenario";
import { type MemoryHarness, openMemoryHarness } from "../testing/scenario-harness";
import { buildRunTranscript, type TranscriptItem } from "./run-transcript";

const loadSharedScenario = (fileName: string) =>
  parseScenarioJson(readFileSync(path.join(process.cwd(), "lib", "scenarios", fileName), "utf8"));

let harness: MemoryHarness;
beforeAll(() => {
  harness = openMemoryHarness();
});

async function viewOf(runId: string): Promise<RunView> {
  const view = await harness.host.loadView(runId);
  if (!view) throw new Error(`no run ${runId}`);
  return view;
}

/** One line per item, as a person reads the conversation. */
function describeItems(items: TranscriptItem[]): string[] {
  return items.map((item) => {
    switch (item.kind) {
      case "assistant":
        return `model ${item.stepIndex + 1}: ${item.text ?? "-"} [${item.calls.map((call) => call.name).join(", ")}]`;
      case "tool":
        return `${item.call.name}#${item.call.batchIndex}: ${item.isAwaitingApproval ? "awaiting" : item.call.status}`;
      case "decision":
        return `${item.decision.approve ? "approved" : "denied"} by ${item.decision.actor}${item.decision.reason ? `: ${item.decision.reason}` : ""}`;
      case "waiting":
        return `waiting at ${item.gates.join(",")}`;
      default:
        return `finished ${item.status}`;
    }
  });
}

describe("the run's transcript, a projection of its view", () => {
  it("tells an approved run in order: the model's calls, the decision and its reply, then each result", async () => {
    const report = await runScenarioHeadless(harness.host, loadSharedScenario("write-then-read-back.json"));
    const items = buildRunTranscript(await viewOf(report.runId));
    expect(describeItems(items)).toEqual([
      "model 1: - [write_file, read_file]",
      "approved by operator: expected change",
      "write_file#0: ok",
      "read_file#1: ok",
      "model 2: - [finish]",
      "finish#0: ok",
      "finished COMPLETED",
    ]);
    const readBack = items.find((item) => item.kind === "tool" && item.call.name === "read_file");
    expect(readBack?.kind === "tool" && readBack.call.result).toEqual(
      expect.objectContaining({ content: '{"debug": true}\n' }),
    );
  });

  it("shows a denial's reply before the calls it denied and invalidated, and what the model said next", async () => {
    const report = await runScenarioHeadless(
      harness.host,
      loadSharedScenario("denied-write-invalidates-rest.json"),
    );
    expect(describeItems(buildRunTranscript(await viewOf(report.runId)))).toEqual([
      "model 1: - [read_file, delete_file, list_files]",
      "read_file#0: ok",
      "denied by operator: never delete user data",
      "delete_file#1: denied",
      "list_files#2: invalidated",
      "model 2: - [reply]",
      "reply#0: ok",
      "model 3: - [finish]",
      "finish#0: ok",
      "finished COMPLETED",
    ]);
  });

  it("while the run waits, marks the gated call and ends with the wait; nothing is 'finished'", async () => {
    const waiting = await runScenarioHeadless(harness.host, {
      ...loadSharedScenario("write-then-read-back.json"),
      decisions: [],
    });
    expect(describeItems(buildRunTranscript(await viewOf(waiting.runId)))).toEqual([
      "model 1: - [write_file, read_file]",
      "write_file#0: awaiting",
      "read_file#1: pending",
      "waiting at 0",
    ]);
  });

  it("grows as the events are folded one at a time, never reordering what was already shown", async () => {
    const report = await runScenarioHeadless(harness.host, loadSharedScenario("write-then-read-back.json"));
    const events = await harness.events(report.runId);
    let view = emptyRunView(report.runId);
    let shown: string[] = [];
    for (const event of events) {
      view = applyRunEvent(view, event);
      const keys = buildRunTranscript(view).map((item) => item.key);
      // Keys already shown keep their relative order: the conversation only gains lines.
      expect(keys.filter((key) => shown.includes(key))).toEqual(shown.filter((key) => keys.includes(key)));
      shown = keys;
    }
    expect(shown.at(-1)).toBe("finished");
  });

  it("an empty run (nothing planned yet) has an empty transcript", () => {
    expect(buildRunTranscript(emptyRunView("r"))).toEqual([]);
  });
});
