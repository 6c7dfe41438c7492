import { Playground } from "@/components/playground/playground";
import { findPreset, SCENARIO_PRESETS } from "@/lib/scenarios/scenario-presets";

/** The playground; `?preset=<id>` opens a preset directly (links and demos use it). */
export default async function PlaygroundPage({
  searchParams,
}: {
  searchParams: Promise<{ preset?: string | string[] }>;
}) {
  const { preset } = await searchParams;
  const requested = typeof preset === "string" ? findPreset(preset) : undefined;
  const presetId = (requested ?? SCENARIO_PRESETS[0])?.id ?? "";
  return <Playground key={presetId} initialPresetId={presetId} />;
}
