import { readFileSync } from "node:fs";
import path from "node:path";
import type { DatabaseHandle } from "@/db/client";
import { listEventsAfter } from "@/db/repositories/run-queries";
import { openTestDatabase } from "@/db/testing/test-database";
import { parseScenarioJson, validateScenario } from "@/lib/runtime/scenario/parse-scenario";
import type { Scenario, ScenarioInput } from "@/lib/runtime/scenario/scenario-schema";
import { createRunService, type RunService } from "../run-service";

/** One database and run service for a test file, with switchable fault injection. */
export async function openScenarioHarness() {
  const handle: DatabaseHandle = await openTestDatabase();
  const armed = { approvals: 0, steps: 0 };
  const service: RunService = createRunService(handle, {
    faults: {
      takeApprovalFault: () => armed.approvals > 0 && armed.approvals-- > 0,
      takeStepFault: () => armed.steps > 0 && armed.steps-- > 0,
    },
  });
  return {
    handle,
    service,
    faults: armed,
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
