import type { Metadata } from "next";
import Link from "next/link";
import { RunsList } from "@/components/runs/runs-list";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { decodePageCursor } from "@/lib/server/lists/page-cursor";
import { readListQuery } from "@/lib/server/lists/read-list-query";
import { getRunService } from "@/lib/server/server-context";
import { runListQuerySchema } from "@/lib/wire/list-filters";

export const metadata: Metadata = { title: "Runs · Tool Playground" };
export const dynamic = "force-dynamic";

/** Every run, newest first, filtered by status and a search, paged (`?status=&q=&after=`). */
export default async function RunsRoute({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageIdentity();
  const params = await searchParams;
  const { query, problem } = readListQuery(runListQuerySchema, params);
  // Set by the run page's Delete: the run is gone, so this list says what became of it.
  const deleted = typeof params.deleted === "string" ? params.deleted.slice(0, 200) : null;
  const after = query.after ? decodePageCursor(query.after) : null;
  const page = await (await getRunService()).listRuns({
    limit: query.limit,
    after,
    filter: { status: query.status, search: query.q, archived: query.archived },
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
      {deleted && (
        <p className="notice" role="status">
          Run “{deleted}” was deleted. Its decisions stay in the <Link href="/audit">audit</Link>.
        </p>
      )}
      <RunsList page={page} query={{ ...query, after: after ? query.after : undefined }} />
    </>
  );
}
