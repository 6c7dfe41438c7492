import { describe, expect, it } from "vitest";
import { scenarioAgentOf } from "../grants/scenario-agent";
import type { RunRecord } from "../run/run-records";
import { parseScenarioValue } from "../scenario/parse-scenario";
import { MAX_SCENARIO_NAME_LENGTH } from "../scenario/scenario-schema";
import { decodeStoredScenario, readStoredScenario } from "./stored-scenarios";

const LONG_NAME = `nightly ${"x".repeat(292)}`; // 300 characters

const storedRun = (scenario: unknown): RunRecord => ({
  id: "run-long-name",
  status: "RUNNING",
  scenario,
  limits: { maxParallelToolCalls: 4, maxBatchPayloadBytes: 65_536, maxRepairAttempts: 2 },
  modelCalls: 0,
  state: null,
  startedById: null,
  leaseExpired: false,
  allowedTools: {},
  version: "1",
});

describe("a run's stored scenario", () => {
  it("decodes with the name it was stored with, however long, to the agent it was before names were capped", () => {
    const stored = {
      name: LONG_NAME,
      model: { kind: "scripted", turns: [{ calls: [{ name: "finish", arguments: { summary: "done" } }] }] },
    };
    const scenario = decodeStoredScenario(storedRun(stored));
    expect(scenario.name).toBe(LONG_NAME);
    // A policy backtest reads stored scenarios the same way.
    expect(readStoredScenario(stored)).toEqual(scenario);
    // Pinned before the cap: a grant given to this scenario's runs still covers them.
    expect(scenarioAgentOf(scenario)).toBe(
      `scenario:${LONG_NAME}@dd7db91528315898bf1d5366881977afcc7675af472179164e2a91e50a9d46f0`,
    );
  });

  it("of a name within the cap is the same object, and agent, as a new scenario of that name", () => {
    const input = {
      name: "n".repeat(MAX_SCENARIO_NAME_LENGTH),
      model: { kind: "scripted", turns: [{ calls: [{ name: "finish", arguments: { summary: "done" } }] }] },
    };
    const started = parseScenarioValue(input);
    expect(decodeStoredScenario(storedRun(started))).toEqual(started);
    expect(scenarioAgentOf(started)).toBe(
      `scenario:${input.name}@5df0598f1693c8515ab628bfccb4426987d1a20181b42e0ccd27a77d71bb6fad`,
    );
  });
});
