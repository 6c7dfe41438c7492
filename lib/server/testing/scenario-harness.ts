import { readFileSync } from "node:fs";
import path from "node:path";
import type { DatabaseHandle } from "@/db/client";
import { openTestDatabase } from "@/db/testing/test-database";
import type { RunStore } from "@/lib/runtime";
import { parseScenarioJson } from "@/lib/runtime/scenario/parse-scenario";
import type { Scenario } from "@/lib/runtime/scenario/scenario-schema";
import { createFaultRegistry, faultsThen } from "@/lib/runtime/testing/faulty-run-store";
import type { ModelEndpoints } from "@/lib/server/config/model-endpoints";
import { createRunService, type RunService, type RunServiceOptions } from "@/lib/server/runs/run-service";
import { createMcpConnections } from "../mcp/mcp-connections";

// Tests name their MCP servers; none come from the environment.
const NO_MCP_CONNECTIONS = createMcpConnections(new Map());

export { buildScenario } from "@/lib/runtime/testing/scenario-harness";

/**
 * One database and run service for a test file, with fault injection armed
 * by tests, and `serviceWith` for a service over a wrapped store (failures
 * the database cannot be made to produce on demand).
 */
export async function openScenarioHarness(
  options: { modelEndpoints?: ModelEndpoints; mcp?: RunServiceOptions["mcp"] } = {},
) {
  const handle: DatabaseHandle = await openTestDatabase();
  const faults = createFaultRegistry();
  const modelEndpoints = options.modelEndpoints ?? { endpoints: new Map(), problem: null };
  const serviceWith = (wrapStore?: (store: RunStore) => RunStore): RunService =>
    createRunService(handle, {
      modelEndpoints,
      mcp: options.mcp ?? { servers: { servers: new Map(), problem: null }, connections: NO_MCP_CONNECTIONS },
      wrapStore: faultsThen(faults, wrapStore),
    });
  const service = serviceWith();
  return {
    handle,
    service,
    serviceWith,
    faults,
    events: (runId: string) => service.readEvents(runId, 0),
    close: () => handle.close(),
  };
}

export type ScenarioHarness = Awaited<ReturnType<typeof openScenarioHarness>>;

/** One of the example scenarios (copies of the shared ones, in lib/scenarios), parsed as the CLI parses it. */
export function loadSharedScenario(fileName: string): Scenario {
  return parseScenarioJson(readFileSync(path.join(process.cwd(), "lib", "scenarios", fileName), "utf8"));
}
