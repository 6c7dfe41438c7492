// Gated runs waiting at their barrier, for the benches that decide them.
import type { RunService } from "@/lib/server/runs/run-service";
import { buildScenario } from "../lib/runtime/testing/scenario-harness";
import { GATED } from "./shapes";

/** One gated run, waiting, with the turn a decision must name. */
export async function waitingRun(service: RunService): Promise<{ runId: string; turnDigest: string }> {
  const { runId, settled } = await service.startRun(buildScenario(GATED));
  if ((await settled) !== "WAITING_FOR_APPROVAL") throw new Error("the gated run did not wait");
  const view = await service.loadView(runId);
  if (!view?.pending) throw new Error("no pending turn");
  return { runId, turnDigest: view.pending.turnDigest };
}

/** `count` gated runs waiting, with the seq they wait at. */
export async function waitingRuns(service: RunService, count: number) {
  const waiting: Array<{ runId: string; turnDigest: string; waitingAt: number }> = [];
  for (let index = 0; index < count; index += 1) {
    const run = await waitingRun(service);
    waiting.push({ ...run, waitingAt: (await service.readEvents(run.runId, 0)).at(-1)?.seq ?? 0 });
  }
  return waiting;
}
