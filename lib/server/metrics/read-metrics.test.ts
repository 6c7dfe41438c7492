import { beforeAll, describe, expect, it } from "vitest";
import type { RunService } from "@/lib/server/runs/run-service";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import { FINISHED_COUNTS_KEPT_MS, readMetrics } from "./read-metrics";

const setup = setUpRouteTests();
let service: RunService;

beforeAll(async () => {
  service = await setup.runService();
});

/** `playground_runs{status="…"}` in a scrape's text. */
function runsWith(text: string, status: string): number {
  const line = text
    .split("\n")
    .find((candidate) => candidate.startsWith(`playground_runs{status="${status}"}`));
  if (!line) throw new Error(`no playground_runs line for ${status}`);
  return Number(line.split(" ").at(-1));
}

describe("the runs gauge at scrape time", () => {
  it("counts running and waiting runs at every scrape, and finished ones as of the last minute", async () => {
    const { db } = setup.handle;
    const start = Date.now();
    const first = (await readMetrics(db, { now: start })).text;
    const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario("counted")));
    expect(await settled).toBe("WAITING_FOR_APPROVAL");
    const waiting = (await readMetrics(db, { now: start + 1_000 })).text;
    expect(runsWith(waiting, "WAITING_FOR_APPROVAL")).toBe(runsWith(first, "WAITING_FOR_APPROVAL") + 1);

    const turnDigest = (await service.loadView(runId))?.pending?.turnDigest ?? "";
    expect((await service.decide(runId, { approve: true, turnDigest, actor: "ops" })).status).toBe(
      "COMPLETED",
    );
    const soon = (await readMetrics(db, { now: start + 2_000 })).text;
    expect(runsWith(soon, "WAITING_FOR_APPROVAL")).toBe(runsWith(first, "WAITING_FOR_APPROVAL"));
    // Finished runs are read at most once a minute: the kept count, not yet the run that just ended.
    expect(runsWith(soon, "COMPLETED")).toBe(runsWith(first, "COMPLETED"));

    // A minute on, a scrape reads them again (answering with the kept ones meanwhile).
    const later = start + FINISHED_COUNTS_KEPT_MS + 2_000;
    await expect
      .poll(async () => runsWith((await readMetrics(db, { now: later })).text, "COMPLETED"))
      .toBe(runsWith(first, "COMPLETED") + 1);
  });
});
