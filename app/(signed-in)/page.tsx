import { McpServersPanel } from "@/components/playground/mcp-servers-panel";
import { Playground } from "@/components/playground/playground";
import { RecentRuns } from "@/components/playground/recent-runs";
import { runIdSchema } from "@/lib/http/request-schemas";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { findPreset, SCENARIO_PRESETS } from "@/lib/scenarios/scenario-presets";
import { getModelEndpoints } from "@/lib/server/get-model-endpoints";
import { getRunService } from "@/lib/server/get-run-service";
import { summarizeModelEndpoints } from "@/lib/server/model-endpoints";

/**
 * The playground; `?preset=<id>` opens a preset directly (links and demos use
 * it), `?from=<runId>` opens a run saved as a scenario that replays it.
 */
export default async function PlaygroundPage({
  searchParams,
}: {
  searchParams: Promise<{ preset?: string | string[]; from?: string | string[] }>;
}) {
  await requirePageIdentity();
  const { preset, from } = await searchParams;
  const requested = typeof preset === "string" ? findPreset(preset) : undefined;
  const presetId = (requested ?? SCENARIO_PRESETS[0])?.id ?? "";
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
        models={summarizeModelEndpoints(getModelEndpoints())}
        modelsProblem={getModelEndpoints().problem}
      />
      <McpServersPanel />
      <RecentRuns runs={recent} />
    </>
  );
}
