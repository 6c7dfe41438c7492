import "server-only";
import { getLogger } from "../logger";
import { createMcpConnections, type McpConnections } from "./mcp-connections";
import { type McpServers, readMcpServers } from "./mcp-servers";

const globalForMcp = globalThis as typeof globalThis & {
  toolPlaygroundMcpServers?: McpServers;
  toolPlaygroundMcpConnections?: McpConnections;
};

/** The process's MCP servers, read once from its environment; a bad configuration is logged once. */
export function getMcpServers(): McpServers {
  if (!globalForMcp.toolPlaygroundMcpServers) {
    const configured = readMcpServers();
    if (configured.problem)
      getLogger().error({ problem: configured.problem }, "the MCP servers cannot be read");
    globalForMcp.toolPlaygroundMcpServers = configured;
  }
  return globalForMcp.toolPlaygroundMcpServers;
}

/** The process's connections to those servers, shared by every run and listing (opened on first use). */
export function getMcpConnections(): McpConnections {
  globalForMcp.toolPlaygroundMcpConnections ??= createMcpConnections(getMcpServers().servers);
  return globalForMcp.toolPlaygroundMcpConnections;
}
