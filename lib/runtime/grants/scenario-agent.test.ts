import { describe, expect, it } from "vitest";
import { buildScenario } from "../testing/scenario-harness";
import { scenarioAgentOf, scenarioNameOfAgent } from "./scenario-agent";

const scripted = (name: string, summary: string) =>
  buildScenario({
    name,
    model: { kind: "scripted", turns: [{ calls: [{ name: "finish", arguments: { summary } }] }] },
  });

describe("a scenario's agent", () => {
  it("is its name and the digest of its content: the same for equal scenarios, another for any change", () => {
    const agent = scenarioAgentOf(scripted("writer", "done"));
    expect(agent).toMatch(/^scenario:writer@[0-9a-f]{64}$/);
    expect(scenarioAgentOf(scripted("writer", "done"))).toBe(agent);
    expect(scenarioAgentOf(scripted("writer", "done!"))).not.toBe(agent);
  });

  it("reads back as the scenario's name, even one with an @ in it; any other agent has none", () => {
    expect(scenarioNameOfAgent(scenarioAgentOf(scripted("ops@night", "done")))).toBe("ops@night");
    expect(scenarioNameOfAgent("scenario:writer")).toBeNull();
    expect(scenarioNameOfAgent("agent:grant-agent")).toBeNull();
  });
});
