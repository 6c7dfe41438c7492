/**
 * One in-memory store and run host for a test file: scenarios run exactly as
 * on the server, without a database. Faults are armed by tests;
 * `hostWith` gives a host over the same store behind a test's decorator.
 */
import type { RunStore } from "../run/run-store";
import { validateScenario } from "../scenario/parse-scenario";
import type { Scenario, ScenarioInput } from "../scenario/scenario-schema";
import { createFaultRegistry, faultsThen } from "./faulty-run-store";
import { createMemoryRunHost, type MemoryRunHost } from "./memory-run-host";
import { createMemoryRunStore } from "./memory-run-store";
import type { MemoryToolContext } from "./memory-tool-context";

export function openMemoryHarness() {
  const store = createMemoryRunStore();
  const contexts = new Map<string, MemoryToolContext>();
  const faults = createFaultRegistry();
  const hostWith = (wrapStore?: (store: RunStore) => RunStore): MemoryRunHost =>
    createMemoryRunHost({
      store,
      contexts,
      wrapStore: faultsThen(faults, wrapStore),
    });
  const host = hostWith();
  return {
    host,
    hostWith,
    faults,
    store,
    events: (runId: string) => store.readEvents(runId, 0),
    close: async () => {},
  };
}

export type MemoryHarness = ReturnType<typeof openMemoryHarness>;

/** A scenario from an object literal; throws on anything the schema refuses. */
export function buildScenario(input: ScenarioInput): Scenario {
  const result = validateScenario(input);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.scenario;
}

/**
 * The scenario with no tool slower than `maxDelayMs`: a preset made slow for people to watch (1.5 s a
 * call) tests the same plans, waves and outcomes in a fraction of the time, since what the runtime
 * decides never depends on how long a tool takes.
 */
export function withToolDelaysAtMost<T extends ScenarioInput>(input: T, maxDelayMs: number): T {
  const tools = (input as { tools?: Array<{ delayMs?: number }> }).tools;
  if (!tools) return input;
  return {
    ...input,
    tools: tools.map((tool) =>
      tool.delayMs === undefined ? tool : { ...tool, delayMs: Math.min(tool.delayMs, maxDelayMs) },
    ),
  };
}
