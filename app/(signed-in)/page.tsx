import { Playground } from "@/components/playground/playground";
import { RecentRuns } from "@/components/playground/recent-runs";
import { findPreset, SCENARIO_PRESETS } from "@/lib/scenarios/scenario-presets";
import { getModelEndpoints } from "@/lib/server/get-model-endpoints";
import { getRunService } from "@/lib/server/get-run-service";
import { summarizeModelEndpoints } from "@/lib/server/model-endpoints";

/** The playground; `?preset=<id>` opens a preset directly (links and demos use it). */
export default async function PlaygroundPage({
  searchParams,
}: {
  searchParams: Promise<{ preset?: string | string[] }>;
}) {
  const { preset } = await searchParams;
  const requested = typeof preset === "string" ? findPreset(preset) : undefined;
  const presetId = (requested ?? SCENARIO_PRESETS[0])?.id ?? "";
  const recent = await (await getRunService()).listRecentRuns();
  return (
    <>
      <Playground
        key={presetId}
        initialPresetId={presetId}
        models={summarizeModelEndpoints(getModelEndpoints())}
        modelsProblem={getModelEndpoints().problem}
      />
      <RecentRuns runs={recent} />
    </>
  );
}
