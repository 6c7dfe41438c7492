import { type ModelEndpoints, readModelEndpoints } from "@/lib/server/config/model-endpoints";
import { createMcpConnections, type McpConnections } from "@/lib/server/mcp/mcp-connections";
import { type McpServers, readMcpServers } from "@/lib/server/mcp/mcp-servers";

/**
 * The CLI's own small composition root: the operator's model endpoints and MCP servers, read once
 * from this process's environment, and the connections to those servers. The app's root
 * (lib/server/server-context.ts) brings its auth, database, notifications and metrics along, and
 * loading those was most of every command's start, a headless run's included, which needs none of them.
 */
let built: {
  modelEndpoints: ModelEndpoints;
  mcpServers: McpServers;
  mcpConnections?: McpConnections;
} | null = null;

function read() {
  if (!built) {
    const modelEndpoints = readModelEndpoints();
    const mcpServers = readMcpServers();
    for (const problem of [modelEndpoints.problem, mcpServers.problem]) {
      if (problem) process.stderr.write(`playground: ${problem}\n`);
    }
    built = { modelEndpoints, mcpServers };
  }
  return built;
}

export function cliModelEndpoints(): ModelEndpoints {
  return read().modelEndpoints;
}

export function cliMcpServers(): McpServers {
  return read().mcpServers;
}

/** Opened on first use; close them before the process ends (a stdio server's process ends with them). */
export function cliMcpConnections(): McpConnections {
  const parts = read();
  parts.mcpConnections ??= createMcpConnections(parts.mcpServers.servers);
  return parts.mcpConnections;
}

/** What a run service of this process is built with, as `processModelsAndMcp` gives the app's. */
export function cliModelsAndMcp() {
  return {
    modelEndpoints: cliModelEndpoints(),
    mcp: { servers: cliMcpServers(), connections: cliMcpConnections() },
  };
}

/** Closes the MCP connections if any were opened. */
export async function closeCliMcpConnections(): Promise<void> {
  await built?.mcpConnections?.close();
}
