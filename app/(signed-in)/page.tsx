import { McpServersPanel } from "@/components/playground/mcp-servers-panel";
import { Playground } from "@/components/playground/playground";
import { PROMPT_TEMPLATE_ID } from "@/components/playground/prompt-template";
import { RecentRuns } from "@/components/playground/recent-runs";
import { runIdSchema } from "@/lib/http/request-schemas";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { findPreset, SCENARIO_PRESETS } from "@/lib/scenarios/scenario-presets";
import { getModelEndpoints } from "@/lib/server/get-model-endpoints";
import { getRunService } from "@/lib/server/get-run-service";
import { getMcpServers } from "@/lib/server/mcp/get-mcp-servers";
import { summarizeModelEndpoints } from "@/lib/server/model-endpoints";

/**
 * The playground; `?preset=<id>` opens a preset directly (links and demos use
 * it; `prompt-template` is the prompt-a-model template; an unknown id says so
 * and opens the first preset), `?from=<runId>` opens a run saved as a scenario that replays it.
 */
export default async function PlaygroundPage({
  searchParams,
}: {
  searchParams: Promise<{ preset?: string | string[]; from?: string | string[] }>;
}) {
  await requirePageIdentity();
  const { preset, from } = await searchParams;
  const requestedId = typeof preset === "string" ? preset : undefined;
  const isKnown =
    requestedId !== undefined && (requestedId === PROMPT_TEMPLATE_ID || !!findPreset(requestedId));
  const presetId = isKnown && requestedId ? requestedId : (SCENARIO_PRESETS[0]?.id ?? "");
  const service = await getRunService();
  const fromRunId = typeof from === "string" && runIdSchema.safeParse(from).success ? from : null;
  const exported = fromRunId ? await service.exportScenario(fromRunId) : null;
  const recent = await service.listRecentRuns();
  return (
    <>
      <Playground
        key={fromRunId ?? presetId}
        initialPresetId={presetId}
        initialScenario={exported && fromRunId ? { ...exported, fromRunId } : undefined}
        unknownPresetId={requestedId !== undefined && !isKnown ? requestedId : undefined}
        models={summarizeModelEndpoints(getModelEndpoints())}
        modelsProblem={getModelEndpoints().problem}
        configured={{
          modelEndpoints: [...getModelEndpoints().endpoints.keys()],
          mcpServers: [...getMcpServers().servers.keys()],
        }}
      />
      <McpServersPanel />
      <RecentRuns runs={recent} />
    </>
  );
}
