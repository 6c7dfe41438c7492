import type { Metadata } from "next";
import { InsightsPage } from "@/components/insights/insights-page";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { insightsQuerySchema, loadApprovalInsights } from "@/lib/server/insights/approval-insights";
import { readListQuery } from "@/lib/server/lists/read-list-query";

export const metadata: Metadata = { title: "Insights · Tool Playground" };
export const dynamic = "force-dynamic";

/** Where approvals wait, for operators and admins (`?range=24h|7d|30d`). */
export default async function InsightsRoute({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageIdentity("operator");
  const { query, problem } = readListQuery(insightsQuerySchema, await searchParams);
  const insights = await loadApprovalInsights(query.range);
  return (
    <>
      {problem && (
        <p className="alert" role="alert">
          This address has a range that cannot be read ({problem}); showing the last 7 days.
        </p>
      )}
      <InsightsPage insights={insights} />
    </>
  );
}
