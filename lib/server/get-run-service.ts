import "server-only";
import { getDatabase } from "@/db/client";
import { startBackgroundWork } from "./background-work";
import { readExecutionSettings } from "./execution-settings";
import {
  createFaultRegistry,
  type FaultRegistry,
  isFaultInjectionEnabled,
  withInjectedFaults,
} from "./fault-injection";
import { getLogger, logWarning } from "./logger";
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
          log: logWarning,
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

const globalForWork = globalThis as typeof globalThis & {
  toolPlaygroundBackgroundWork?: () => Promise<void>;
};

/** Whether this process runs the background work (recovery and deadline sweeps). */
export function isBackgroundWorkRunning(): boolean {
  return globalForWork.toolPlaygroundBackgroundWork !== undefined;
}

/** Starts this server process's background work once (instrumentation.ts calls it at start-up). */
export async function startServerBackgroundWork(): Promise<void> {
  if (globalForWork.toolPlaygroundBackgroundWork) return;
  const service = await getRunService();
  globalForWork.toolPlaygroundBackgroundWork = startBackgroundWork(
    service,
    readExecutionSettings(),
    (message, detail) => getLogger().info(detail ?? {}, message),
  );
}
