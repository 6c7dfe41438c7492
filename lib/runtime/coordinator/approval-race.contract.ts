/**
 * The approval race, shared by the in-memory coordinator tests and the
 * Postgres suite (where the attempts really run at once): 32 approvals of one
 * waiting turn whose barrier is the custom tool `deploy`. Exactly one takes
 * effect and runs the barrier, once; every other one is `not_waiting`.
 */
import { expect } from "vitest";
import type { RunHost } from "../host/run-host";
import type { PendingTurn } from "../run/run-types";
import { NotWaitingError } from "./decision-errors";

export async function expectOneOfManyApprovalsToExecute(
  host: Pick<RunHost, "decide" | "readEvents" | "getReport">,
  runId: string,
  pending: PendingTurn,
): Promise<void> {
  const barrier = pending.calls[0];
  expect(barrier?.name).toBe("deploy");
  const results = await Promise.allSettled(
    Array.from({ length: 32 }, (_, index) =>
      host.decide(runId, { approve: true, turnDigest: pending.turnDigest, actor: `actor-${index}` }),
    ),
  );
  const fulfilled = results.filter((result) => result.status === "fulfilled");
  const rejected = results.filter((result) => result.status === "rejected");
  expect(fulfilled.map((result) => result.value)).toEqual([{ outcome: "executed", status: "COMPLETED" }]);
  expect(rejected).toHaveLength(31);
  for (const result of rejected) {
    expect(NotWaitingError.isInstance(result.reason)).toBe(true);
    expect(result.reason).toMatchObject({ code: "not_waiting" });
  }
  const events = await host.readEvents(runId, 0);
  const barrierStarts = events.filter(
    (event) => event.type === "call_started" && event.payload.batchIndex === barrier?.batchIndex,
  );
  expect(barrierStarts).toHaveLength(1);
  expect(events.filter((event) => event.type === "approval_decided")).toHaveLength(1);
  const report = await host.getReport(runId);
  expect(report?.decisions).toHaveLength(1);
  expect(report?.steps[0]?.calls.find((call) => call.name === "deploy")).toMatchObject({
    status: "ok",
    result: { deployed: true },
  });
}
