import { describe, expect, it } from "vitest";
import type { ScenarioInput } from "../scenario/scenario-schema";
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

/**
 * A scenario's digest is of the scenario as the schema parses it, defaults filled in. A default
 * added to the schema, or a value it starts to rewrite, changes the digest of every stored scenario
 * that left the field out, and every grant given on one of them silently stops covering its runs
 * (fail-closed, but unannounced: approvers would see gates they had waived). These digests are
 * pinned so that such a change is seen here, and goes with a migration that revokes those grants
 * saying why (as 0023 does), or keeps the new field out of the digest while it holds its default.
 */
describe("a scenario's digest, pinned", () => {
  const documented = {
    name: "write, then read it back",
    limits: { maxParallelToolCalls: 8, maxBatchPayloadBytes: 262144, maxRepairAttempts: 2 },
    workspace: { "notes/todo.md": "buy milk" },
    approvals: { write_file: "always" },
    policy: { requireDistinctApprover: true },
    tools: [
      {
        name: "deploy",
        description: "Deploy a service",
        resourceClass: "write",
        effect: "NON_IDEMPOTENT_WRITE",
        approval: "always",
        parameters: { type: "object", properties: { service: { type: "string" } }, required: ["service"] },
        result: { deployed: true },
        error: null,
        delayMs: 20,
      },
    ],
    model: {
      kind: "scripted",
      turns: [
        {
          calls: [
            { id: "c1", name: "write_file", arguments: '{"path":"a.txt","content":"x"}' },
            { name: "read_file", arguments: { path: "a.txt" } },
          ],
        },
        { text: "Done.", calls: [{ name: "finish", arguments: { summary: "done" } }] },
      ],
    },
    decisions: [{ approve: true, actor: "alice", reason: "looks right" }],
  };
  const prompted = {
    name: "triage",
    model: { kind: "openai-compatible", endpoint: "default", prompt: "Sort the inbox." },
  };

  it.each([
    [
      "the scenario format's example, every field set",
      documented,
      "eef55f0a37abb3065989e1c27b8960d9c96cf7b29db30809c74084075658a984",
    ],
    [
      "a prompt with every field left to its default",
      prompted,
      "04067686b56862d8c11bc8e6029e30238b385ea447c2e9dd877ccd2e38a03ebe",
    ],
  ])("%s", (_, input, digest) => {
    expect(scenarioAgentOf(buildScenario(input as ScenarioInput))).toBe(`scenario:${input.name}@${digest}`);
  });
});
