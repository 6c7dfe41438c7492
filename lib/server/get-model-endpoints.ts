import "server-only";
import { getLogger } from "@/lib/server/logger";
import { type ModelEndpoints, readModelEndpoints } from "./model-endpoints";

const globalForModels = globalThis as typeof globalThis & { toolPlaygroundModels?: ModelEndpoints };

/** The process's model endpoints, read once from its environment; a bad configuration is logged once. */
export function getModelEndpoints(): ModelEndpoints {
  if (!globalForModels.toolPlaygroundModels) {
    const registry = readModelEndpoints();
    if (registry.problem)
      getLogger().error({ problem: registry.problem }, "the model endpoints cannot be read");
    globalForModels.toolPlaygroundModels = registry;
  }
  return globalForModels.toolPlaygroundModels;
}
