import type { AgentMailbox } from "../agent/agent-mailbox";
import { createAgentTool } from "../agent/agent-tool";
import { ToolConfigurationError } from "../errors";
import type { Scenario } from "../scenario/scenario-schema";
import { findSchemaPatterns, type SchemaPattern } from "../tools/safe-reg-exp";
import type { ToolDefinition } from "../tools/tool-definition";
import { createToolRegistry, type ToolRegistry } from "../tools/tool-registry";

/** Where a host finds a scenario's tools besides its own (the host's options of the same names). */
export interface RunToolSources {
  prepareTools?(scenario: Scenario): Promise<{ definitions: ToolDefinition[]; problems: string[] }>;
  judgePatterns?(patterns: SchemaPattern[]): Promise<void>;
  agents?: { mailbox: AgentMailbox; pollMs?: number };
  now(): number;
}

/**
 * The scenario's tools: the built-ins, its own, and those of its servers as they are listed now.
 * `problems` names what could not be offered.
 */
export async function listRunTools(
  scenario: Scenario,
  sources: RunToolSources,
): Promise<{ registry: ToolRegistry; problems: string[] }> {
  const prepared = sources.prepareTools
    ? await sources.prepareTools(scenario)
    : { definitions: [], problems: [] };
  const problems = [...prepared.problems];
  const agents = sources.agents;
  // An agent's declared tools are executed by the agent: released to it, their outcomes its reports.
  const agentTools =
    scenario.model.kind === "agent" && agents
      ? scenario.tools.map((tool) =>
          createAgentTool(tool, {
            mailbox: agents.mailbox,
            releaseLeaseMs:
              scenario.model.kind === "agent" ? scenario.model.releaseLeaseSeconds * 1_000 : 60_000,
            pollMs: agents.pollMs ?? 250,
            now: sources.now,
          }),
        )
      : [];
  let definitions = [...agentTools, ...prepared.definitions];
  await sources.judgePatterns?.(
    [...scenario.tools, ...definitions].flatMap((tool) => findSchemaPatterns(tool.parameters)),
  );
  // A tool from elsewhere that cannot be offered (a schema that does not compile, a name that
  // collides) is left out and named, never a failure of the run: the scenario's own tools were
  // checked when it was accepted, so the registry always builds without the others.
  for (;;) {
    try {
      const registry = createToolRegistry({
        definitions,
        tools: agentTools.length > 0 ? [] : scenario.tools,
        approvals: scenario.approvals,
      });
      return { registry, problems };
    } catch (error) {
      const refused = ToolConfigurationError.isInstance(error)
        ? definitions.find((definition) => definition.name === error.toolName)
        : undefined;
      if (!refused || !(error instanceof Error)) throw error;
      definitions = definitions.filter((definition) => definition !== refused);
      problems.push(`${refused.name} cannot be offered: ${error.message}.`);
    }
  }
}
