import "server-only";
import { z } from "zod";
import { EFFECTS, InvalidScenarioError, RESOURCE_CLASSES, type Scenario } from "@/lib/runtime";
import { findMcpServerIssues } from "@/lib/scenarios/check-scenario-configuration";
import { readJsonConfig } from "@/lib/server/config/read-json-config";

const toolOverrideSchema = z
  .object({
    effect: z.enum(EFFECTS).optional(),
    resourceClass: z.enum(RESOURCE_CLASSES).optional(),
    approval: z.enum(["always", "never"]).optional(),
  })
  .strict();

/**
 * One MCP server the operator configured. Clients never name a command or a
 * URL: scenarios will enable servers by id. A stdio server gets only the
 * environment written here (plus `PATH` to find its command), never this
 * server's own (its database URL, its model keys).
 */
export const mcpServerSchema = z
  .object({
    transport: z.discriminatedUnion("kind", [
      z
        .object({
          kind: z.literal("stdio"),
          command: z.string().min(1),
          args: z.array(z.string()).default([]),
          cwd: z.string().min(1).optional(),
          env: z.record(z.string(), z.string()).default({}),
        })
        .strict(),
      z
        .object({
          kind: z.literal("http"),
          url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
        })
        .strict(),
    ]),
    trust: z.enum(["untrusted", "trusted"]).default("untrusted"),
    /** How long listing or calling a tool may take. */
    timeoutMs: z.number().int().positive().max(600_000).default(30_000),
    /** Per tool (by its name on the server): the operator's effect, class or approval over the server's annotations. */
    tools: z.record(z.string(), toolOverrideSchema).default({}),
  })
  .strict();

/** Server ids prefix tool names (`memory__read_graph`): short, lower-case, no `__`. */
const serverIdSchema = z
  .string()
  .regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, "lower-case letters and digits, single '_' between words")
  .max(24);

export const mcpServersSchema = z.record(serverIdSchema, mcpServerSchema);
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

export interface McpServers {
  servers: ReadonlyMap<string, McpServerConfig>;
  problem: string | null;
}

/** The MCP servers from `PLAYGROUND_MCP_SERVERS` (JSON) or `PLAYGROUND_MCP_SERVERS_FILE`. */
export function readMcpServers(env: Record<string, string | undefined> = process.env): McpServers {
  const { value, problem } = readJsonConfig(env, "PLAYGROUND_MCP_SERVERS", mcpServersSchema);
  return { servers: new Map(Object.entries(value ?? {})), problem };
}

/** Refuses a scenario that enables an MCP server the operator did not configure (400, naming `mcpServers.N`). */
export function checkScenarioMcpServers(scenario: Scenario, configured: McpServers): void {
  const issues = findMcpServerIssues(scenario.mcpServers ?? [], [...configured.servers.keys()]);
  if (issues.length > 0) throw new InvalidScenarioError(issues);
}
