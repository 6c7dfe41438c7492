import type { RunStatus } from "../run/run-types";
import { decodeSuspendedState } from "../run/suspended-state";
import type { Scenario } from "../scenario/scenario-schema";
import type { RunReport } from "../view/run-report";
import type { RunHost } from "./run-host";

/**
 * Runs a scenario to the end without a human: each time the run waits, the next of the scenario's
 * `decisions` is applied through the coordinator, for the pending turn as it stands
 * (docs/scenario-format.md#decisions-headless-runs). When they run out the run stays
 * WAITING_FOR_APPROVAL and the report shows the pending turn and its digest.
 */
export async function runScenarioHeadless(
  host: Pick<RunHost, "startRun" | "getRun" | "decide" | "getReport">,
  scenario: Scenario,
): Promise<RunReport> {
  const { runId, settled } = await host.startRun(scenario);
  let status: RunStatus = await settled;
  for (const decision of scenario.decisions) {
    if (status !== "WAITING_FOR_APPROVAL") break;
    const run = await host.getRun(runId);
    if (!run) break;
    const { pending } = decodeSuspendedState(runId, run.state);
    const result = await host.decide(runId, {
      approve: decision.approve,
      turnDigest: pending.turnDigest,
      actor: decision.actor ?? "scenario",
      reason: decision.reason ?? null,
      editedArguments: decision.editedArguments ?? null,
      scope: decision.scope,
      alwaysAllow: decision.alwaysAllow,
    });
    status = result.status;
  }
  const report = await host.getReport(runId);
  if (!report) throw new Error(`run ${runId} has no report`);
  return report;
}
