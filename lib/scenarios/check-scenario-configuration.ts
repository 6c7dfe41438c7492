import type { Scenario } from "@/lib/runtime/browser";

/** The names a server's operator configured: what a scenario may name. Names only, never URLs or keys. */
export interface ServerConfiguration {
  modelEndpoints: readonly string[];
  mcpServers: readonly string[];
}

export interface ConfigurationIssue {
  path: string;
  message: string;
}

/**
 * The problems a well-formed scenario still has on a server with this
 * configuration: a model endpoint or MCP server it names that is not
 * configured. The server refuses with exactly these issues (400), and the
 * playground shows them as the person types — one wording for both.
 */
export function findConfigurationIssues(
  scenario: Pick<Scenario, "model" | "mcpServers">,
  configured: ServerConfiguration,
): ConfigurationIssue[] {
  return [
    ...findModelEndpointIssues(scenario.model, configured.modelEndpoints),
    ...findMcpServerIssues(scenario.mcpServers ?? [], configured.mcpServers),
  ];
}

/** A prompted model must name a configured endpoint (`model.endpoint`); a scripted one needs none. */
export function findModelEndpointIssues(
  model: Scenario["model"],
  configured: readonly string[],
): ConfigurationIssue[] {
  if (model.kind !== "openai-compatible" || configured.includes(model.endpoint)) return [];
  return [
    {
      path: "model.endpoint",
      message: configured.length
        ? `no model endpoint named "${model.endpoint}" is configured (configured: ${configured.join(", ")})`
        : `no model endpoint named "${model.endpoint}" is configured; the server has none (set PLAYGROUND_MODELS)`,
    },
  ];
}

/** Every MCP server a scenario enables must be configured (`mcpServers.N`). */
export function findMcpServerIssues(
  enabled: readonly string[],
  configured: readonly string[],
): ConfigurationIssue[] {
  return enabled.flatMap((id, index) =>
    configured.includes(id)
      ? []
      : [
          {
            path: `mcpServers.${index}`,
            message: configured.length
              ? `no MCP server "${id}" is configured (configured: ${configured.join(", ")})`
              : `no MCP server "${id}" is configured; the server has none (set PLAYGROUND_MCP_SERVERS)`,
          },
        ],
  );
}
