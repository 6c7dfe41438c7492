import type { Scenario } from "../scenario/scenario-schema";
import { canonicalJson, sha256Hex } from "../turn-digest";

const SCENARIO_AGENT = /^scenario:(.*)@[0-9a-f]{64}$/s;

/** Keyed by the scenario object a host decodes once per run, so a run's digest is computed once. */
const agentsOfScenarios = new WeakMap<Scenario, string>();

/**
 * The agent a run of the playground's own model is to an agent-scoped grant
 * (docs/policies.md#grants): its scenario's name and the SHA-256 of its canonical JSON. The name
 * is whatever the scenario's writer typed, so any operator can start another scenario under it;
 * what makes a run the same agent is the whole of what it runs (model, script or prompt, tools, MCP
 * servers, workspace, settings), and any change to that makes it another, whoever starts it.
 */
export function scenarioAgentOf(scenario: Scenario): string {
  let agent = agentsOfScenarios.get(scenario);
  if (agent === undefined) {
    agent = `scenario:${scenario.name}@${sha256Hex(canonicalJson(scenario))}`;
    agentsOfScenarios.set(scenario, agent);
  }
  return agent;
}

/** The scenario's name in an agent of {@link scenarioAgentOf}; null for any other agent. */
export function scenarioNameOfAgent(agent: string): string | null {
  return SCENARIO_AGENT.exec(agent)?.[1] ?? null;
}
