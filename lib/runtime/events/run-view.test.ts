import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runScenarioHeadless } from "../host/run-scenario-headless";
import { parseScenarioJson } from "../scenario/parse-scenario";
import { type MemoryHarness, openMemoryHarness } from "../testing/scenario-harness";
import type { StoredRunEvent } from "./run-events";
import { applyRunEvent, classifyEvent, foldRunEvents, type RunView } from "./run-view";

const loadSharedScenario = (fileName: string) =>
  parseScenarioJson(readFileSync(path.join(process.cwd(), "lib", "scenarios", fileName), "utf8"));

let harness: MemoryHarness;
beforeAll(() => {
  harness = openMemoryHarness();
});

const waitingAtWrite = () =>
  runScenarioHeadless(harness.host, { ...loadSharedScenario("write-then-read-back.json"), decisions: [] });

describe("the run view, the one fold of a run's events", () => {
  it("a waiting run shows its pending turn and digest, and loses them once decided", async () => {
    const waiting = await waitingAtWrite();
    const view = await harness.host.loadView(waiting.runId);
    expect(view?.status).toBe("WAITING_FOR_APPROVAL");
    expect(view?.pending).toEqual({ stepIndex: 0, ...waiting.pending, isExpiring: false, escalations: [] });
    expect(view?.steps[0]?.calls.map((call) => call.status)).toEqual(["pending", "pending"]);

    await harness.host.decide(waiting.runId, {
      approve: true,
      turnDigest: waiting.pending?.turnDigest,
      actor: "alice",
    });
    const decided = await harness.host.loadView(waiting.runId);
    expect(decided?.pending).toBeNull();
    expect(decided?.status).toBe("COMPLETED");
    expect(decided?.steps[0]?.calls[1]?.result).toEqual(
      expect.objectContaining({ content: '{"debug": true}\n' }),
    );
    // The log alone tells the story: who took the run up, and how it went on.
    const types = decided?.log.map((entry) => entry.type) ?? [];
    expect(types.slice(types.indexOf("awaiting_approval"), types.indexOf("step_finished") + 1)).toEqual([
      "awaiting_approval",
      "run_claimed",
      "approval_decided",
      "run_resumed",
      "call_started",
      "call_settled",
      "wave_started",
      "call_started",
      "call_settled",
      "step_finished",
    ]);
    expect(types.at(-1)).toBe("run_finished");
  });

  it("a refused decision after the claim shows the run waiting again at the same turn", async () => {
    const waiting = await waitingAtWrite();
    harness.faults.arm("approvals", 1);
    await expect(
      harness.host.decide(waiting.runId, {
        approve: true,
        turnDigest: waiting.pending?.turnDigest,
        actor: "alice",
      }),
    ).rejects.toMatchObject({ code: "not_auditable" });
    const view = await harness.host.loadView(waiting.runId);
    expect(view?.status).toBe("WAITING_FOR_APPROVAL");
    expect(view?.pending).toEqual({ stepIndex: 0, ...waiting.pending, isExpiring: false, escalations: [] });
    expect(view?.log.slice(-2).map((entry) => entry.type)).toEqual(["run_claimed", "run_released"]);
    expect(await harness.host.getReport(waiting.runId)).toMatchObject({
      status: "WAITING_FOR_APPROVAL",
      pending: waiting.pending,
      decisions: [],
    });
  });

  it("a fired escalation step shows under its turn, survives a refused decision, and not a new turn", async () => {
    const waiting = await waitingAtWrite();
    const events = await harness.host.readEvents(waiting.runId, 0);
    const waitingEvent = events.find((event) => event.type === "awaiting_approval");
    if (waitingEvent?.type !== "awaiting_approval") throw new Error("the run does not wait");
    const { stepIndex, turnDigest } = waitingEvent.payload;
    let seq = events.at(-1)?.seq ?? 0;
    const at = "2027-01-05T12:00:00.000Z";
    const next = <E extends StoredRunEvent>(event: Omit<E, "seq" | "at">) =>
      ({ ...event, seq: ++seq, at }) as StoredRunEvent;
    const escalated = next({
      type: "approval_escalated",
      payload: {
        stepIndex,
        turnDigest,
        channel: "mail",
        step: 1,
        steps: 2,
        afterMinutes: 15,
        to: { users: [], roles: ["admin"] },
      },
    });
    const escalation = {
      seq: escalated.seq,
      at,
      channel: "mail",
      step: 1,
      steps: 2,
      afterMinutes: 15,
      to: { users: [], roles: ["admin"] },
    };
    const claimed = next({ type: "run_claimed", payload: { stepIndex, turnDigest, purpose: "decision" } });
    const released = next({
      type: "run_released",
      payload: { ...waitingEvent.payload, refusal: "not_auditable" },
    });
    const view = foldRunEvents(waiting.runId, [...events, escalated]);
    expect(view.pending?.escalations).toEqual([escalation]);
    const refused = foldRunEvents(waiting.runId, [...events, escalated, claimed, released]);
    expect(refused.pending?.escalations).toEqual([escalation]);
    const otherTurn = next({
      type: "approval_escalated",
      payload: { ...(escalated.payload as object), turnDigest: "0".repeat(64) },
    } as Omit<StoredRunEvent, "seq" | "at">);
    expect(foldRunEvents(waiting.runId, [...events, otherTurn]).pending?.escalations).toEqual([]);
  });

  it("a cancelled waiting turn clears the pending turn although no decision was made", async () => {
    const waiting = await waitingAtWrite();
    await harness.host.cancelRun(waiting.runId, "run");
    const view = await harness.host.loadView(waiting.runId);
    expect(view).toMatchObject({ status: "CANCELLED", pending: null, decisions: [] });
    expect(view?.steps[0]?.calls.map((call) => call.status)).toEqual(["invalidated", "invalidated"]);
  });

  it("the report lists an unaudited decision that went on (a read-only turn), marked as such", async () => {
    const waiting = await runScenarioHeadless(harness.host, {
      ...loadSharedScenario("write-then-read-back.json"),
      approvals: { write_file: "never", read_file: "always" },
      decisions: [],
    });
    harness.faults.arm("approvals", 1);
    await harness.host.decide(waiting.runId, {
      approve: true,
      turnDigest: waiting.pending?.turnDigest,
      actor: "carol",
    });
    const report = await harness.host.getReport(waiting.runId);
    expect(report?.decisions).toEqual([
      expect.objectContaining({ actor: "carol", approve: true, outcome: "executed", audited: false }),
    ]);
  });

  it("folding replays is idempotent and gaps are recognised, not folded over", async () => {
    const report = await runScenarioHeadless(
      harness.host,
      loadSharedScenario("fourteen-reads-cap-eight.json"),
    );
    const events = await harness.host.readEvents(report.runId, 0);
    const once = foldRunEvents(report.runId, events);
    const twice = events.reduce(applyRunEvent, once);
    expect(twice).toBe(once);

    const partial: RunView = foldRunEvents(report.runId, events.slice(0, 3));
    expect(classifyEvent(partial, 3)).toBe("duplicate");
    expect(classifyEvent(partial, 4)).toBe("next");
    expect(classifyEvent(partial, 6)).toBe("gap");
    // Resuming after the last seen seq yields exactly the rest.
    const rest = await harness.host.readEvents(report.runId, partial.lastSeq);
    expect(rest.reduce(applyRunEvent, partial)).toEqual(once);
  });

  it("an unknown run has no view and no report", async () => {
    expect(await harness.host.loadView("00000000-0000-4000-8000-000000000000")).toBeNull();
    expect(await harness.host.getReport("00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});
