/**
 * Scenario pieces several tests share: a read that takes its time, and a
 * gated deploy (a non-idempotent write) whose executions can be counted.
 */
import type { ScenarioInput } from "../scenario/scenario-schema";

/** A declared read tool that answers after `delayMs` (slow enough to cancel, crash or watch mid-wave). */
export function slowReadTool(delayMs: number, name = "slow_scan") {
  return {
    name,
    description: "Scan slowly",
    resourceClass: "pure_read" as const,
    effect: "READ" as const,
    approval: "never" as const,
    delayMs,
    result: { scanned: true },
  };
}

/** A gated NON_IDEMPOTENT_WRITE named `deploy`, after a read, then `finish`. */
export function deployTurn(name: string, delayMs = 0): ScenarioInput {
  return {
    name,
    tools: [
      {
        name: "deploy",
        description: "Deploy a service",
        resourceClass: "write",
        effect: "NON_IDEMPOTENT_WRITE",
        approval: "always",
        delayMs,
        result: { deployed: true },
      },
    ],
    model: {
      kind: "scripted",
      turns: [
        {
          calls: [
            { name: "list_files", arguments: {} },
            { name: "deploy", arguments: {} },
          ],
        },
        { calls: [{ name: "finish", arguments: { summary: "done" } }] },
      ],
    },
  };
}

/** Two gated writes (`write_file`), one turn each, then `finish`: a run that waits at two barriers in turn. */
export function twoGatedWrites(name: string): ScenarioInput {
  return {
    name,
    model: {
      kind: "scripted",
      turns: [
        { calls: [{ id: "w1", name: "write_file", arguments: { path: "a.txt", content: "a" } }] },
        { calls: [{ id: "w2", name: "write_file", arguments: { path: "b.txt", content: "b" } }] },
        { calls: [{ name: "finish", arguments: { summary: "done" } }] },
      ],
    },
  };
}
