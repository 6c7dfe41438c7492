import "server-only";
import { getDatabase } from "@/db/client";
import {
  createFaultRegistry,
  type FaultRegistry,
  isFaultInjectionEnabled,
  withInjectedFaults,
} from "./fault-injection";
import { createRunService, type RunService } from "./run-service";

const globalForService = globalThis as typeof globalThis & {
  toolPlaygroundService?: Promise<{ service: RunService; faults: FaultRegistry | null }>;
};

/** The process-wide run service on the process-wide database (with fault injection only when enabled). */
export function getRunServiceContext(): Promise<{ service: RunService; faults: FaultRegistry | null }> {
  if (!globalForService.toolPlaygroundService) {
    const opening = getDatabase().then((handle) => {
      const faults = isFaultInjectionEnabled() ? createFaultRegistry() : null;
      return {
        faults,
        service: createRunService(handle, {
          wrapStore: faults ? (store) => withInjectedFaults(store, faults) : undefined,
          log: (message, detail) => console.warn(`[runtime] ${message}`, detail ?? ""),
        }),
      };
    });
    opening.catch(() => {
      if (globalForService.toolPlaygroundService === opening)
        globalForService.toolPlaygroundService = undefined;
    });
    globalForService.toolPlaygroundService = opening;
  }
  return globalForService.toolPlaygroundService;
}

export async function getRunService(): Promise<RunService> {
  return (await getRunServiceContext()).service;
}
