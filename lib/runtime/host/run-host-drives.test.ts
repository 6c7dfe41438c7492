import { describe, expect, it } from "vitest";
import type { Model } from "../model/model";
import { createMemoryRunHost } from "../testing/memory-run-host";
import { deployTurn, slowReadTool } from "../testing/scenario-fixtures";
import { buildScenario } from "../testing/scenario-harness";

/** A model whose completions wait until `release` is called: a drive held in its step. */
function heldModel() {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let asked = () => {};
  const askedOnce = new Promise<void>((resolve) => {
    asked = resolve;
  });
  return {
    wrap: (model: Model): Model => ({
      async complete(request) {
        asked();
        await released;
        return model.complete(request);
      },
    }),
    askedOnce,
    release,
  };
}

describe("what a process keeps for the runs it drives", () => {
  it("counts a run while a step of it is under way, and forgets it when the run waits and when it ends", async () => {
    const model = heldModel();
    const host = createMemoryRunHost({ wrapModel: model.wrap });
    const { runId, settled } = await host.startRun(buildScenario(deployTurn("held")));
    await model.askedOnce;
    expect(host.runsDrivenHere()).toBe(1);
    model.release();
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    expect(host.runsDrivenHere()).toBe(0);

    const pending = (await host.loadView(runId))?.pending;
    const decided = await host.decide(runId, {
      approve: true,
      turnDigest: pending?.turnDigest ?? "",
      actor: "ana",
    });
    expect(decided.status).toBe("COMPLETED");
    expect(host.runsDrivenHere()).toBe(0);
  });

  it("keeps nothing after many runs have ended (a server lives for months)", async () => {
    const host = createMemoryRunHost();
    const runs = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        host.startRun(
          buildScenario({
            name: `quick ${index}`,
            model: {
              kind: "scripted",
              turns: [
                { calls: [{ name: "list_files", arguments: {} }] },
                { calls: [{ name: "finish", arguments: { summary: "done" } }] },
              ],
            },
          }),
        ),
      ),
    );
    expect(await Promise.all(runs.map((run) => run.settled))).toEqual(runs.map(() => "COMPLETED"));
    expect(host.runsDrivenHere()).toBe(0);
  });

  it("still aborts a read in flight when the run is cancelled", async () => {
    const host = createMemoryRunHost();
    const { runId, settled } = await host.startRun(
      buildScenario({
        name: "a long read, cancelled",
        tools: [slowReadTool(60_000)],
        model: {
          kind: "scripted",
          turns: [
            { calls: [{ name: "slow_scan", arguments: {} }] },
            { calls: [{ name: "finish", arguments: { summary: "done" } }] },
          ],
        },
      }),
    );
    const readStarted = async () =>
      (await host.readEvents(runId, 0)).some((event) => event.type === "call_started");
    for (let attempt = 0; !(await readStarted()); attempt += 1) {
      if (attempt === 400) throw new Error("the read never started");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await host.startCancelRun(runId, "run");
    // The read would take a minute: the run ends now only if the cancel aborted it.
    expect(await settled).toBe("CANCELLED");
    expect(host.runsDrivenHere()).toBe(0);
  });
});
