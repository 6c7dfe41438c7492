import "server-only";
import type { CallToolResult, Client, Transport } from "@modelcontextprotocol/client";
import type { ToolProgress } from "@/lib/runtime";
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

/** The process's connections to the operator's MCP servers, opened on first use. */
export interface McpConnections {
  /**
   * The server's tools, listed afresh (never from a cache: a changed definition must show), or the
   * problem. Calls that overlap share the one listing in flight; `signal` stops waiting for it.
   */
  list(id: string, signal?: AbortSignal): Promise<ListedMcpServer>;
  /** Calls a tool by its name on the server; throws an `McpCallError` naming the server when the call fails. */
  call(
    id: string,
    toolName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    /** The server's progress reports, if it sends any. */
    onProgress?: (progress: ToolProgress) => void,
  ): Promise<CallToolResult>;
  /** Closes every connection (a stdio server's process ends with it). */
  close(): Promise<void>;
}

/** A call that failed below the tool (no connection, a protocol error, a timeout), named by the server's id only. */
export class McpCallError extends Error {}

/**
 * Connections to `servers`, one per server, opened lazily and kept: a stdio
 * server is one child process for the whole process, not one per call. A
 * connection that closes or fails is opened again at the next use.
 */
export function createMcpConnections(servers: ReadonlyMap<string, McpServerConfig>): McpConnections {
  const open = new Map<string, Promise<Client>>();
  const listings = new Map<string, Promise<ListedMcpServer>>();

  function configOf(id: string): McpServerConfig {
    const config = servers.get(id);
    if (!config) throw new McpCallError(`no MCP server "${id}" is configured`);
    return config;
  }

  /** The server's connection (the one open, or a new one), as the map holds it. */
  function connectionOf(id: string): Promise<Client> {
    let client = open.get(id);
    if (!client) {
      const opening = connect(configOf(id), () => {
        if (open.get(id) === opening) open.delete(id);
      });
      opening.catch(() => {
        if (open.get(id) === opening) open.delete(id);
      });
      open.set(id, opening);
      client = opening;
    }
    return client;
  }

  /**
   * Runs `work` on the server's connection. A failure (a timeout too) drops
   * the connection, so the next use opens a new one; the caller's own
   * cancellation does not (the client tells the server, and the connection
   * stays good).
   */
  async function withClient<T>(
    id: string,
    signal: AbortSignal,
    cancelled: AbortSignal | undefined,
    work: (client: Client) => Promise<T>,
  ) {
    const connection = connectionOf(id);
    const client = await raceAbort(connection, signal);
    try {
      return await work(client);
    } catch (error) {
      // Only this connection, never a newer one another call opened meanwhile.
      if (!cancelled?.aborted && open.get(id) === connection) {
        open.delete(id);
        await client.close().catch(() => {});
      }
      throw error;
    }
  }

  /** The server's tools as it lists them now, or the problem; bounded by the server's timeout alone. */
  async function listNow(id: string): Promise<ListedMcpServer> {
    const config = configOf(id);
    const listed = { id, transport: config.transport.kind, trust: config.trust } as const;
    const signal = withTimeout(config.timeoutMs);
    try {
      const { tools } = await withClient(id, signal, undefined, (client) =>
        client.listTools(undefined, { cacheMode: "bypass", signal, timeout: config.timeoutMs }),
      );
      return {
        ...listed,
        problem: null,
        tools: await Promise.all(tools.map((tool) => describeTool(id, config, tool))),
      };
    } catch (error) {
      const why = signal.aborted ? `no answer within ${config.timeoutMs} ms` : describeFailure(error);
      return { ...listed, tools: [], problem: `The MCP server "${id}" could not be listed: ${why}.` };
    }
  }

  return {
    async list(id, outer) {
      // Listings that overlap share one request: a wave of N calls re-reads the definitions once, not N times.
      let listing = listings.get(id);
      if (!listing) {
        listing = listNow(id).finally(() => listings.delete(id));
        listings.set(id, listing);
      }
      if (!outer) return listing;
      const config = configOf(id);
      return raceAbort(listing, outer).catch(() => ({
        id,
        transport: config.transport.kind,
        trust: config.trust,
        tools: [],
        problem: `The MCP server "${id}" could not be listed: the listing was cancelled.`,
      }));
    },
    async call(id, toolName, args, outer, onProgress) {
      const config = configOf(id);
      const signal = withTimeout(config.timeoutMs, outer);
      try {
        return (await withClient(id, signal, outer, (client) =>
          client.callTool(
            { name: toolName, arguments: args },
            {
              signal,
              timeout: config.timeoutMs,
              // The server may say how far it is. The call's time (timeoutMs) is a total all the same.
              ...(onProgress ? { onprogress: onProgress } : {}),
            },
          ),
        )) as CallToolResult;
      } catch (error) {
        if (outer.aborted) throw error;
        const why = signal.aborted ? `no answer within ${config.timeoutMs} ms` : describeFailure(error);
        throw new McpCallError(`The MCP server "${id}" failed to run ${toolName}: ${why}.`);
      }
    },
    async close() {
      const clients = [...open.values()];
      open.clear();
      await Promise.all(
        clients.map((client) => client.then((connected) => connected.close()).catch(() => {})),
      );
    },
  };
}

function describeTool(id: string, config: McpServerConfig, tool: McpToolListing): ListedMcpTool {
  return {
    // Own entries only: a server's tool named "constructor" has no override unless the operator wrote one.
    ...classifyMcpTool(
      id,
      config.trust,
      tool,
      Object.hasOwn(config.tools, tool.name) ? config.tools[tool.name] : undefined,
    ),
    serverName: tool.name,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
    fingerprint: computeToolFingerprint(id, tool),
  };
}

type Sdk = [
  typeof import("@modelcontextprotocol/client"),
  typeof import("@modelcontextprotocol/client/stdio"),
];
let sdk: Promise<Sdk> | undefined;

/**
 * The MCP SDK, loaded at the first connection: loading it takes longer than
 * a whole headless run, and a process with no MCP server never needs it.
 */
function loadSdk(): Promise<Sdk> {
  sdk ??= Promise.all([import("@modelcontextprotocol/client"), import("@modelcontextprotocol/client/stdio")]);
  return sdk;
}

/** A connected client; `onClose` is told when the connection closes. A client that fails to connect is closed. */
async function connect(config: McpServerConfig, onClose: () => void): Promise<Client> {
  const [{ Client, StreamableHTTPClientTransport }, { StdioClientTransport, DEFAULT_INHERITED_ENV_VARS }] =
    await loadSdk();
  const client = new Client({ name: "tool-playground", version: "1.0.0" });
  client.onclose = onClose;
  // A stdio server sees only what the operator wrote for it, and `PATH` to find its command.
  const { transport } = config;
  // The SDK adds HOME, LOGNAME, SHELL, TERM and USER of this process to whatever `env` says;
  // a variable whose value is undefined is one Node leaves out of the child's environment.
  const withheld: Record<string, string> = Object.fromEntries(
    DEFAULT_INHERITED_ENV_VARS.map((name): [string, string] => [name, undefined as unknown as string]),
  );
  const connection: Transport =
    transport.kind === "http"
      ? new StreamableHTTPClientTransport(new URL(transport.url))
      : new StdioClientTransport({
          command: transport.command,
          args: transport.args,
          ...(transport.cwd ? { cwd: transport.cwd } : {}),
          env: {
            ...withheld,
            PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
            ...transport.env,
          },
          // Its own diagnostics are not ours to print.
          stderr: "ignore",
        });
  try {
    await client.connect(connection);
  } catch (error) {
    void client.close().catch(() => {});
    throw error;
  }
  return client;
}

function withTimeout(timeoutMs: number, outer?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return outer ? AbortSignal.any([outer, timeout]) : timeout;
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
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
