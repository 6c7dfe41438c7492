import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ComparePage } from "@/components/compare/compare-page";
import { runIdSchema } from "@/lib/http/request-schemas";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { getRunService } from "@/lib/server/server-context";

export const metadata: Metadata = { title: "Compare · Tool Playground" };

/** `/compare?runs=<a>,<b>`: two runs side by side (the playground's "Run under both policies"). */
export default async function CompareRoute({
  searchParams,
}: {
  searchParams: Promise<{ runs?: string | string[] }>;
}) {
  await requirePageIdentity();
  const { runs } = await searchParams;
  const ids = typeof runs === "string" ? runs.split(",") : [];
  if (ids.length !== 2 || !ids.every((id) => runIdSchema.safeParse(id).success)) notFound();
  const service = await getRunService();
  const views = await Promise.all(ids.map((id) => service.loadView(id)));
  if (views.some((view) => view === null)) notFound();
  return <ComparePage initialViews={views.flatMap((view) => (view ? [view] : []))} />;
}
