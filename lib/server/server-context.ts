import "server-only";
import { type Auth, createAuth, readSecret } from "@/lib/server/auth/auth";
import { attachIdentityCache, createIdentityCache, identityCacheOf } from "@/lib/server/auth/identity-cache";
import { readExecutionSettings } from "@/lib/server/config/execution-settings";
import { type ModelEndpoints, readModelEndpoints } from "@/lib/server/config/model-endpoints";
import { getDatabase } from "@/lib/server/database";
import { createMcpConnections, type McpConnections } from "@/lib/server/mcp/mcp-connections";
import { type McpServers, readMcpServers } from "@/lib/server/mcp/mcp-servers";
import { createNotifierFromEnv } from "@/lib/server/notifications/notifier-from-env";
import { startBackgroundWork } from "@/lib/server/ops/background-work";
import {
  createFaultRegistry,
  type FaultRegistry,
  isFaultInjectionEnabled,
  withInjectedFaults,
} from "@/lib/server/ops/fault-injection";
import { getLogger, logWarning } from "@/lib/server/ops/logger";
import { processPart } from "@/lib/server/process-parts";
import { createRunService, type RunService, type RunServiceOptions } from "@/lib/server/runs/run-service";

/**
 * The host layer's composition root: what a server process builds once and every route, action
 * and page shares — auth on the process's database, the model endpoints and MCP servers read from the environment, the connections
 * to those servers, the run service on the process's database (with fault injection only when
 * enabled), and the background work. Each part is built on first use, here and nowhere else.
 */
type ServerParts = {
  auth?: Promise<Auth>;
  modelEndpoints?: ModelEndpoints;
  mcpServers?: McpServers;
  mcpConnections?: McpConnections;
  runService?: Promise<{ service: RunService; faults: FaultRegistry | null }>;
  backgroundWork?: () => Promise<void>;
};

// Kept in the process's one slot (process-parts.ts): Next may load this module more than once per
// process (each route and action bundle gets its own copy), and every copy must hand out the same parts.
function parts(): ServerParts {
  return processPart<ServerParts>("server-context", () => ({}));
}

/**
 * Forgets the parts built on the process's database (auth and the run service), so the next use builds them
 * on the database now installed; tests that give the process a fresh database call it.
 */
export function resetServerContext(): void {
  const built = parts();
  // The old database's token cache stops listening (its handle is being closed or replaced).
  built.auth?.then((auth) => identityCacheOf(auth)?.close()).catch(() => {});
  built.auth = undefined;
  built.runService = undefined;
}

/** The process-wide auth on the process-wide database. */
export function getAuth(): Promise<Auth> {
  const built = parts();
  if (!built.auth) {
    const opening = getDatabase().then(async (handle) => {
      const auth = createAuth(handle.db, await readSecret(handle.db));
      attachIdentityCache(auth, createIdentityCache(handle));
      return auth;
    });
    opening.catch(() => {
      if (built.auth === opening) built.auth = undefined;
    });
    built.auth = opening;
  }
  return built.auth;
}

/** The process's model endpoints, read once from its environment; a bad configuration is logged once. */
export function getModelEndpoints(): ModelEndpoints {
  const built = parts();
  if (!built.modelEndpoints) {
    const registry = readModelEndpoints();
    if (registry.problem)
      getLogger().error({ problem: registry.problem }, "the model endpoints cannot be read");
    built.modelEndpoints = registry;
  }
  return built.modelEndpoints;
}

/** The process's MCP servers, read once from its environment; a bad configuration is logged once. */
export function getMcpServers(): McpServers {
  const built = parts();
  if (!built.mcpServers) {
    const configured = readMcpServers();
    if (configured.problem)
      getLogger().error({ problem: configured.problem }, "the MCP servers cannot be read");
    built.mcpServers = configured;
  }
  return built.mcpServers;
}

/** The process's connections to those servers, shared by every run and listing (opened on first use). */
export function getMcpConnections(): McpConnections {
  const built = parts();
  built.mcpConnections ??= createMcpConnections(getMcpServers().servers);
  return built.mcpConnections;
}

/** This process's MCP servers and its connections to them, as a run service takes them. */
export function processMcp(): RunServiceOptions["mcp"] {
  return { servers: getMcpServers(), connections: getMcpConnections() };
}

/** What a run service of this process is built with: its model endpoints and MCP servers. */
export function processModelsAndMcp(): Pick<RunServiceOptions, "modelEndpoints" | "mcp"> {
  return { modelEndpoints: getModelEndpoints(), mcp: processMcp() };
}

/** The process-wide run service on the process-wide database (with fault injection only when enabled). */
export function getRunServiceContext(): Promise<{ service: RunService; faults: FaultRegistry | null }> {
  const built = parts();
  if (!built.runService) {
    const opening = getDatabase().then((handle) => {
      const faults = isFaultInjectionEnabled() ? createFaultRegistry() : null;
      return {
        faults,
        service: createRunService(handle, {
          wrapStore: faults ? (store) => withInjectedFaults(store, faults) : undefined,
          log: logWarning,
          ...processModelsAndMcp(),
        }),
      };
    });
    // A failed open is not kept: the next request tries again.
    opening.catch(() => {
      if (built.runService === opening) built.runService = undefined;
    });
    built.runService = opening;
  }
  return built.runService;
}

export async function getRunService(): Promise<RunService> {
  return (await getRunServiceContext()).service;
}

/** Whether this process runs the background work (recovery and deadline sweeps). */
export function isBackgroundWorkRunning(): boolean {
  return parts().backgroundWork !== undefined;
}

/** Starts this server process's background work once (instrumentation.ts calls it at start-up). */
export async function startServerBackgroundWork(): Promise<void> {
  if (parts().backgroundWork) return;
  const service = await getRunService();
  const log = (message: string, detail?: Record<string, unknown>) => getLogger().info(detail ?? {}, message);
  const notifier = createNotifierFromEnv((await getDatabase()).db, logWarning);
  parts().backgroundWork = startBackgroundWork(service, readExecutionSettings(), log, notifier);
}
