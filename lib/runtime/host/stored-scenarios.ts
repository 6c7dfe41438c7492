import type { TranscriptEntry } from "../model/model";
import { describeFirstIssue, UnreadableRunError } from "../run/persisted-schemas";
import type { RunRecord } from "../run/run-records";
import { type Scenario, storedScenarioSchema } from "../scenario/scenario-schema";

/**
 * A run's stored scenario, decoded: it was valid when the run started, and must still be (its
 * name may be longer than a new scenario's may: it was stored before the limit).
 */
export function decodeStoredScenario(run: RunRecord): Scenario {
  const parsed = storedScenarioSchema.safeParse(run.scenario);
  if (!parsed.success) throw new UnreadableRunError(run.id, `scenario: ${describeFirstIssue(parsed.error)}`);
  return parsed.data;
}

/**
 * A stored scenario read outside its run (a policy backtest over stored runs) as
 * {@link decodeStoredScenario} reads it; null for one that no longer decodes.
 */
export function readStoredScenario(stored: unknown): Scenario | null {
  const parsed = storedScenarioSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

/**
 * The scenarios of a host's runs, each decoded once: a run's scenario never changes, so it is
 * decoded once per run (of the most recent 1,000 runs), not at every decision.
 */
export function createScenarioCache() {
  const scenarios = new Map<string, Scenario>();
  return {
    /** The run's scenario, decoded on first use. */
    scenarioOf(run: RunRecord): Scenario {
      let scenario = scenarios.get(run.id);
      if (!scenario) {
        scenario = decodeStoredScenario(run);
        scenarios.set(run.id, scenario);
        const oldest = scenarios.keys().next().value;
        if (scenarios.size > 1_000 && oldest !== undefined) scenarios.delete(oldest);
      }
      return scenario;
    },
    /** The run's scenario if it has been decoded already. */
    known: (runId: string): Scenario | undefined => scenarios.get(runId),
  };
}

/** Whether any wait of this scenario can expire. */
export function hasApprovalTimeouts(scenario: Scenario): boolean {
  return (
    scenario.approvalTimeoutSeconds !== undefined ||
    scenario.tools.some((tool) => tool.approvalTimeoutSeconds !== undefined)
  );
}

/** What the model has been told before its first completion: a real model's prompt; nothing for a script. */
export function initialTranscriptOf(scenario: Scenario): TranscriptEntry[] {
  return scenario.model.kind === "openai-compatible" ? [{ role: "user", text: scenario.model.prompt }] : [];
}
