import type { Scenario } from "../scenario/scenario-schema";
import type { RunReport } from "../view/run-report";
import type { RunHost } from "./run-host";
import { runScenarioHeadless } from "./run-scenario-headless";

/** One run's figures, as the comparison lists them. */
export interface PolicyFigures {
  runId: string;
  status: RunReport["status"];
  completions: number;
  wastedCompletions: number;
  /** Tokens the endpoint reported in all; null when none were reported (a script). */
  totalTokens: number | null;
  /** Calls that ran and succeeded. */
  callsExecuted: number;
  wallMs: number;
}

export function figuresOf(report: RunReport, wallMs: number): PolicyFigures {
  return {
    runId: report.runId,
    status: report.status,
    completions: report.metrics.completions,
    wastedCompletions: report.metrics.wastedCompletions,
    totalTokens: report.metrics.tokens?.totalTokens ?? null,
    callsExecuted: report.steps.flatMap((step) => step.calls).filter((call) => call.status === "ok").length,
    wallMs,
  };
}

/**
 * Runs one scenario under both execution policies, headless (its decisions
 * applied at each wait), one after the other, and says what barriers saved:
 * completions, and the ratio of legacy's to barriers'.
 */
export async function comparePolicies(
  host: Pick<RunHost, "startRun" | "getRun" | "decide" | "getReport">,
  scenario: Scenario,
) {
  const run = async (executionPolicy: Scenario["executionPolicy"]) => {
    const started = performance.now();
    const report = await runScenarioHeadless(host, { ...scenario, executionPolicy });
    return figuresOf(report, Math.round(performance.now() - started));
  };
  const barriers = await run("barriers");
  const legacy = await run("legacy");
  return {
    scenario: scenario.name,
    barriers,
    legacy,
    savedCompletions: legacy.completions - barriers.completions,
    completionRatio: barriers.completions === 0 ? null : legacy.completions / barriers.completions,
  };
}
