import { readFileSync } from "node:fs";
import path from "node:path";
import type { DatabaseHandle } from "@/db/client";
import { listEventsAfter } from "@/db/repositories/run-queries";
import { openTestDatabase } from "@/db/testing/test-database";
import type { RunStore } from "@/lib/runtime";
import { parseScenarioJson, validateScenario } from "@/lib/runtime/scenario/parse-scenario";
import type { Scenario, ScenarioInput } from "@/lib/runtime/scenario/scenario-schema";
import { createFaultRegistry } from "../fault-injection";
import type { ModelEndpoints } from "../model-endpoints";
import { createRunService, type RunService } from "../run-service";

/**
 * One database and run service for a test file, with the server's fault
 * injection armed by tests, and `serviceWith` for a service over a wrapped
 * store (failures the database cannot be made to produce on demand).
 */
export async function openScenarioHarness(options: { modelEndpoints?: ModelEndpoints } = {}) {
  const handle: DatabaseHandle = await openTestDatabase();
  const faults = createFaultRegistry();
  const modelEndpoints = options.modelEndpoints ?? { endpoints: new Map(), problem: null };
  const serviceWith = (wrapStore?: (store: RunStore) => RunStore): RunService =>
    createRunService(handle, { faults, wrapStore, modelEndpoints });
  return {
    handle,
    service: serviceWith(),
    serviceWith,
    faults,
    events: (runId: string) => listEventsAfter(handle.db, runId, 0),
    close: () => handle.close(),
  };
}

export type ScenarioHarness = Awaited<ReturnType<typeof openScenarioHarness>>;

/** One of the example scenarios (copies of the shared ones, in lib/scenarios), parsed as the CLI parses it. */
export function loadSharedScenario(fileName: string): Scenario {
  return parseScenarioJson(readFileSync(path.join(process.cwd(), "lib", "scenarios", fileName), "utf8"));
}

/** A scenario from an object literal; throws on anything the schema refuses. */
export function buildScenario(input: ScenarioInput): Scenario {
  const result = validateScenario(input);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.scenario;
}
