import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { RunPage } from "@/components/run/run-page";
import { runIdSchema } from "@/lib/http/request-schemas";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { getRunService } from "@/lib/server/get-run-service";

export const metadata: Metadata = { title: "Run · Tool Playground" };

/** The live run view: rendered from the stored events, then kept current by the event stream. */
export default async function RunRoute({ params }: { params: Promise<{ id: string }> }) {
  await requirePageIdentity();
  const { id } = await params;
  if (!runIdSchema.safeParse(id).success) notFound();
  const service = await getRunService();
  const [view, run] = await Promise.all([service.loadView(id), service.getRun(id)]);
  if (!view) notFound();
  return <RunPage initialView={view} initialWorkerLost={run?.leaseExpired ?? false} />;
}
