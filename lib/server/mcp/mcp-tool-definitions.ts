import "server-only";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { type JsonSchemaObject, type Scenario, type ToolDefinition, ToolError } from "@/lib/runtime";
import { type ListedMcpTool, McpCallError, type McpConnections } from "./mcp-connections";
import type { McpServers } from "./mcp-servers";

/**
 * The tools of the MCP servers a scenario enables, listed now, as the
 * runtime's tool definitions: each carries its fingerprint, reads it again
 * right before a call is sent, and calls the server with the run's abort
 * signal. A server that cannot be listed is named in `problems`.
 */
export function createMcpToolPreparer(servers: McpServers, connections: McpConnections) {
  return async (scenario: Scenario): Promise<{ definitions: ToolDefinition[]; problems: string[] }> => {
    const ids = scenario.mcpServers ?? [];
    if (ids.length === 0) return { definitions: [], problems: [] };
    const configured = servers.servers;
    const listed = await Promise.all(
      ids.map((id) =>
        configured.has(id)
          ? connections.list(id)
          : { id, tools: [], problem: `The MCP server "${id}" is not configured on this server.` },
      ),
    );
    return {
      definitions: listed.flatMap(({ id, tools, problem }) =>
        problem
          ? []
          : tools.map((tool) =>
              toDefinition(id, configured.get(id)?.trust ?? "untrusted", tool, connections),
            ),
      ),
      problems: listed.flatMap(({ problem }) => (problem ? [problem] : [])),
    };
  };
}

function toDefinition(
  server: string,
  trust: "trusted" | "untrusted",
  tool: ListedMcpTool,
  connections: McpConnections,
): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description ?? "",
    parameters: argumentSchemaOf(tool.inputSchema),
    resourceClass: tool.resourceClass,
    effect: tool.effect,
    approval: tool.approval,
    fingerprint: tool.fingerprint,
    origin: {
      kind: "mcp",
      server,
      trust,
      serverToolName: tool.serverName,
      annotations: tool.annotations ?? null,
      outputSchema: tool.outputSchema ?? null,
      basis: tool.basis,
    },
    async currentFingerprint(signal) {
      const again = await connections.list(server, signal);
      if (again.problem) throw new ToolError(again.problem);
      return again.tools.find((listed) => listed.serverName === tool.serverName)?.fingerprint ?? null;
    },
    async execute(args, context) {
      let result: CallToolResult;
      try {
        result = await connections.call(
          server,
          tool.serverName,
          args,
          context.signal,
          context.reportProgress,
        );
      } catch (error) {
        if (error instanceof McpCallError) throw new ToolError(error.message);
        throw error;
      }
      if (result.isError) {
        throw new ToolError(`${tool.name} reported an error: ${textOf(result) || "(no message)"}`);
      }
      // Structured content is the tool's answer as data; otherwise its content blocks.
      return result.structuredContent !== undefined ? result.structuredContent : { content: result.content };
    },
  };
}

/** The server's input schema, as the runtime's validator takes it (draft-07; the dialect line is left out). */
function argumentSchemaOf(inputSchema: unknown): JsonSchemaObject {
  if (typeof inputSchema !== "object" || inputSchema === null) return { type: "object" };
  const { $schema: _dialect, ...schema } = inputSchema as Record<string, unknown>;
  return { ...schema, type: "object" };
}

function textOf(result: CallToolResult): string {
  return result.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join(" ")
    .slice(0, 500);
}
