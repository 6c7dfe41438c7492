import type { Metadata } from "next";
import { RunsList } from "@/components/runs/runs-list";
import { runListQuerySchema } from "@/lib/http/list-queries";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { getRunService } from "@/lib/server/get-run-service";
import { decodePageCursor } from "@/lib/server/page-cursor";
import { readListQuery } from "@/lib/server/read-list-query";

export const metadata: Metadata = { title: "Runs · Tool Playground" };
export const dynamic = "force-dynamic";

/** Every run, newest first, filtered by status and a search, paged (`?status=&q=&after=`). */
export default async function RunsRoute({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageIdentity();
  const { query, problem } = readListQuery(runListQuerySchema, await searchParams);
  const after = query.after ? decodePageCursor(query.after) : null;
  const page = await (await getRunService()).listRuns({
    limit: query.limit,
    after,
    filter: { status: query.status, search: query.q },
  });
  return (
    <>
      {(problem || (query.after && !after)) && (
        <p className="alert" role="alert">
          This address has a filter that cannot be read ({problem ?? "after: not a page of this list"});
          showing
          {problem ? " every run" : " the first page"}.
        </p>
      )}
      <RunsList page={page} query={{ ...query, after: after ? query.after : undefined }} />
    </>
  );
}
