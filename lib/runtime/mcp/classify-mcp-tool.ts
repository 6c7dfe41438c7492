import { canonicalJson, sha256Hex } from "../turn-digest";
import type { Effect, ResourceClass } from "../types";

/** A tool as an MCP server lists it (`tools/list`), only the fields that matter here. */
export interface McpToolListing {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** How far the operator trusts a server's own account of its tools. */
export type McpTrust = "untrusted" | "trusted";

/** What the operator says about one tool, over whatever the server says. */
export interface McpToolOverride {
  effect?: Effect;
  resourceClass?: ResourceClass;
  approval?: "always" | "never";
}

/** An MCP tool as the planner sees it: its name for models, effect, class and approval, and why. */
export interface ClassifiedMcpTool {
  /** `<server id>__<tool name>`, in the characters every model API accepts, at most 64 long. */
  name: string;
  effect: Effect;
  resourceClass: ResourceClass;
  approval: "always" | "never";
  /** In words, for the operator and the approver. */
  basis: string;
}

const MODEL_TOOL_NAME_MAX = 64;

/**
 * Classifies an MCP tool, failing closed. The annotations say:
 * `readOnlyHint` → READ; otherwise `idempotentHint` → IDEMPOTENT_WRITE;
 * otherwise (or with no annotations) NON_IDEMPOTENT_WRITE. An **untrusted**
 * server's annotations are shown but decide nothing: every tool is a gated
 * `write` that cannot be repeated safely. For a **trusted** server, a READ is
 * a `pure_read` that runs in waves without approval, and every write is a
 * gated `write`. The operator's override, if any, has the last word.
 */
export function classifyMcpTool(
  serverId: string,
  trust: McpTrust,
  tool: McpToolListing,
  override: McpToolOverride | undefined,
): ClassifiedMcpTool {
  const hints = tool.annotations ?? {};
  const claimed: Effect = hints.readOnlyHint
    ? "READ"
    : hints.idempotentHint
      ? "IDEMPOTENT_WRITE"
      : "NON_IDEMPOTENT_WRITE";
  const fromServer =
    trust === "untrusted"
      ? {
          effect: "NON_IDEMPOTENT_WRITE" as const,
          resourceClass: "write" as const,
          approval: "always" as const,
          basis: "untrusted server: its annotations decide nothing, so it is a gated write",
        }
      : claimed === "READ"
        ? {
            effect: claimed,
            resourceClass: "pure_read" as const,
            approval: "never" as const,
            basis: "trusted server says read-only: runs in waves without approval",
          }
        : {
            effect: claimed,
            resourceClass: "write" as const,
            approval: "always" as const,
            basis: hints.destructiveHint
              ? "trusted server says destructive: a gated write"
              : tool.annotations
                ? "trusted server says it writes: a gated write"
                : "no annotations: a gated write that cannot be repeated safely",
          };
  if (!override) return { name: modelToolName(serverId, tool.name), ...fromServer };
  return {
    name: modelToolName(serverId, tool.name),
    effect: override.effect ?? fromServer.effect,
    resourceClass: override.resourceClass ?? fromServer.resourceClass,
    approval: override.approval ?? fromServer.approval,
    basis: `${fromServer.basis}; the operator set ${Object.keys(override).sort().join(", ")}`,
  };
}

/**
 * The name a model calls an MCP tool by: the server id, two underscores, the
 * tool's name, with anything outside `[A-Za-z0-9_-]` made `_` and cut to 64
 * characters. Built-in names have no `__`, so they never collide.
 */
export function modelToolName(serverId: string, toolName: string): string {
  return `${serverId}__${toolName}`.replaceAll(/[^A-Za-z0-9_-]/g, "_").slice(0, MODEL_TOOL_NAME_MAX);
}

/**
 * The tool's fingerprint: SHA-256 of the canonical JSON of everything that
 * was shown about it (server, name, description, schemas, annotations). An
 * approval is bound to it; a definition that changed afterwards has another.
 */
export function computeToolFingerprint(serverId: string, tool: McpToolListing): string {
  const shown = {
    server: serverId,
    name: tool.name,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? null,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  };
  return sha256Hex(canonicalJson(shown));
}
