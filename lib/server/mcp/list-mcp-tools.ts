import "server-only";
import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  type ClassifiedMcpTool,
  classifyMcpTool,
  computeToolFingerprint,
  type McpToolListing,
} from "@/lib/runtime/mcp/classify-mcp-tool";
import type { McpServerConfig } from "./mcp-servers";

/** One tool of a server, as shown to an operator and an approver: what the server says, and what the playground makes of it. */
export interface ListedMcpTool extends ClassifiedMcpTool {
  /** Its name on the server. */
  serverName: string;
  /** Untrusted text from the server. */
  description: string | null;
  inputSchema: unknown;
  outputSchema: unknown;
  annotations: McpToolListing["annotations"] | null;
  fingerprint: string;
}

/** A configured server's tools, or why they could not be listed. */
export interface ListedMcpServer {
  id: string;
  transport: "stdio" | "http";
  trust: "untrusted" | "trusted";
  tools: ListedMcpTool[];
  problem: string | null;
}

/** A stdio server sees only what the operator wrote for it, and `PATH` to find its command. */
function transportFor(config: McpServerConfig): Transport {
  const { transport } = config;
  if (transport.kind === "http") return new StreamableHTTPClientTransport(new URL(transport.url));
  return new StdioClientTransport({
    command: transport.command,
    args: transport.args,
    ...(transport.cwd ? { cwd: transport.cwd } : {}),
    env: { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", ...transport.env },
    // Its own diagnostics are not ours to print.
    stderr: "ignore",
  });
}

/**
 * Connects to a server, lists its tools afresh (never from a cache: a
 * changed definition must show), classifies and fingerprints each, and
 * closes. A server that cannot be reached, or answers too slowly, is listed
 * with the problem, named by its id only.
 */
export async function listMcpServerTools(id: string, config: McpServerConfig): Promise<ListedMcpServer> {
  const listed = { id, transport: config.transport.kind, trust: config.trust } as const;
  const client = new Client({ name: "tool-playground", version: "1.0.0" });
  const signal = AbortSignal.timeout(config.timeoutMs);
  try {
    await Promise.race([
      client.connect(transportFor(config)),
      new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
      ),
    ]);
    const { tools } = await client.listTools(undefined, {
      cacheMode: "bypass",
      signal,
      timeout: config.timeoutMs,
    });
    return {
      ...listed,
      problem: null,
      tools: await Promise.all(
        tools.map(async (tool): Promise<ListedMcpTool> => {
          const listing: McpToolListing = tool;
          return {
            ...classifyMcpTool(id, config.trust, listing, config.tools[tool.name]),
            serverName: tool.name,
            description: tool.description ?? null,
            inputSchema: tool.inputSchema,
            outputSchema: tool.outputSchema ?? null,
            annotations: tool.annotations ?? null,
            fingerprint: await computeToolFingerprint(id, listing),
          };
        }),
      ),
    };
  } catch (error) {
    const why = signal.aborted ? `no answer within ${config.timeoutMs} ms` : describeFailure(error);
    return { ...listed, tools: [], problem: `The MCP server "${id}" could not be listed: ${why}.` };
  } finally {
    await client.close().catch(() => {});
  }
}

/** A failure in a line, without a URL's credentials or a command's environment. */
function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (
    message
      .replaceAll(/https?:\/\/\S+/g, "<url>")
      .split("\n")[0]
      ?.slice(0, 200) ?? "unknown error"
  );
}
