import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { RunPage } from "@/components/run/run-page";
import { runIdSchema } from "@/lib/http/request-schemas";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { decodeStoredScenario, type RunRecord } from "@/lib/runtime";
import { getRunService } from "@/lib/server/server-context";
import { hasRole } from "@/lib/wire/roles";

export const metadata: Metadata = { title: "Run · Tool Playground" };

/** The live run view: rendered from the stored events, then kept current by the event stream. */
export default async function RunRoute({ params }: { params: Promise<{ id: string }> }) {
  const identity = await requirePageIdentity();
  const { id } = await params;
  if (!runIdSchema.safeParse(id).success) notFound();
  const service = await getRunService();
  const [view, run, housekeeping] = await Promise.all([
    service.loadView(id),
    service.getRun(id),
    service.readHousekeeping(id),
  ]);
  if (!view) notFound();
  return (
    <RunPage
      initialView={view}
      initialWorkerLost={run?.leaseExpired ?? false}
      agent={run ? agentOf(run) : null}
      housekeeping={{
        archivedAt: housekeeping?.archivedAt ?? null,
        // Its starter or an admin (lib/server/runs/run-housekeeping.ts checks again); an operator at least.
        canTidy:
          hasRole(identity.role, "admin") ||
          (hasRole(identity.role, "operator") && housekeeping?.startedById === identity.userId),
      }}
    />
  );
}

/** The agent that drives the run from elsewhere (docs/agent-api.md), as the page shows it; null for other runs. */
function agentOf(run: RunRecord) {
  let scenario: ReturnType<typeof decodeStoredScenario>;
  try {
    scenario = decodeStoredScenario(run);
  } catch {
    return null;
  }
  if (scenario.model.kind !== "agent") return null;
  const { agent, openedBy } = scenario.model;
  return {
    name: agent.name,
    version: agent.version ?? null,
    traceId: agent.traceId ?? null,
    metadata: agent.metadata ?? {},
    tokenName: openedBy.tokenName,
    ownerName: openedBy.ownerName,
    tools: scenario.tools.map((tool) => tool.name),
  };
}
