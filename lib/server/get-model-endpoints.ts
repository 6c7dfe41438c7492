import "server-only";
import { type ModelEndpoints, readModelEndpoints } from "./model-endpoints";

const globalForModels = globalThis as typeof globalThis & { toolPlaygroundModels?: ModelEndpoints };

/** The process's model endpoints, read once from its environment; a bad configuration is logged once. */
export function getModelEndpoints(): ModelEndpoints {
  if (!globalForModels.toolPlaygroundModels) {
    const registry = readModelEndpoints();
    if (registry.problem) console.error(`model endpoints: ${registry.problem}`);
    globalForModels.toolPlaygroundModels = registry;
  }
  return globalForModels.toolPlaygroundModels;
}
