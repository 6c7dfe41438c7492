import { McpServersPanel } from "@/components/playground/mcp-servers-panel";
import { Playground } from "@/components/playground/playground";
import { PROMPT_TEMPLATE_ID } from "@/components/playground/prompt-template";
import { RecentRuns } from "@/components/playground/recent-runs";
import { toErrorBody } from "@/lib/http/error-response";
import { readForkRunId, readForkStep } from "@/lib/http/fork-request";
import { runIdSchema } from "@/lib/http/request-schemas";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { findPreset, SCENARIO_PRESETS } from "@/lib/scenarios/scenario-presets";
import { summarizeModelEndpoints } from "@/lib/server/config/model-endpoints";
import type { RunService } from "@/lib/server/runs/run-service";
import { getMcpServers, getModelEndpoints, getRunService } from "@/lib/server/server-context";

/**
 * The playground; `?preset=<id>` opens a preset directly (links and demos use
 * it; `prompt-template` is the prompt-a-model template; an unknown id says so
 * and opens the first preset), `?from=<runId>` opens a run saved as a scenario that replays it,
 * `?fork=<runId>&step=<n>` a fork of a run from its step n (docs/transcript-and-fork.md).
 */
export default async function PlaygroundPage({
  searchParams,
}: {
  searchParams: Promise<{
    preset?: string | string[];
    from?: string | string[];
    fork?: string | string[];
    step?: string | string[];
  }>;
}) {
  await requirePageIdentity();
  const { preset, from, fork, step } = await searchParams;
  const requestedId = typeof preset === "string" ? preset : undefined;
  const isKnown =
    requestedId !== undefined && (requestedId === PROMPT_TEMPLATE_ID || !!findPreset(requestedId));
  const presetId = isKnown && requestedId ? requestedId : (SCENARIO_PRESETS[0]?.id ?? "");
  const service = await getRunService();
  const fromRunId = typeof from === "string" && runIdSchema.safeParse(from).success ? from : null;
  const exported = fromRunId ? await service.exportScenario(fromRunId) : null;
  const forked = typeof fork === "string" ? await openFork(service, fork, step) : null;
  const recent = await service.listRecentRuns();
  return (
    <>
      <Playground
        key={forked?.ok ? `fork-${fork}-${step}` : (fromRunId ?? presetId)}
        initialPresetId={presetId}
        initialScenario={
          forked?.ok
            ? { ...forked.fork, fromRunId: forked.fork.forkedFrom.runId }
            : exported && fromRunId
              ? { ...exported, fromRunId }
              : undefined
        }
        forkProblem={forked && !forked.ok ? forked.problem : undefined}
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

/** The fork a link asks for, or why it cannot be opened (no such run, no such step), as reading the run would say. */
async function openFork(service: RunService, runId: string, step: string | string[] | undefined) {
  try {
    const fork = await service.forkScenario(
      readForkRunId(runId),
      readForkStep(typeof step === "string" ? step : undefined),
    );
    if (!fork) return { ok: false as const, problem: `No run ${runId}.` };
    return { ok: true as const, fork };
  } catch (error) {
    const { status, body } = toErrorBody(error);
    if (status >= 500) throw error;
    return { ok: false as const, problem: body.error.message };
  }
}
