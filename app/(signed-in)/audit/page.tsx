import type { Metadata } from "next";
import { AuditList } from "@/components/audit/audit-list";
import { auditFilterOf, auditQuerySchema } from "@/lib/http/list-queries";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { getRunService } from "@/lib/server/get-run-service";
import { readListQuery } from "@/lib/server/read-list-query";

export const metadata: Metadata = { title: "Audit · Tool Playground" };
export const dynamic = "force-dynamic";

/** The approvals audit, newest first, filtered and paged (`?outcome=&actor=&tool=&run=&before=`). */
export default async function AuditRoute({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageIdentity();
  const { query, problem } = readListQuery(auditQuerySchema, await searchParams);
  const page = await (await getRunService()).listAudit({
    limit: query.limit,
    before: query.before,
    filter: auditFilterOf(query),
  });
  return (
    <>
      {problem && (
        <p className="alert" role="alert">
          This address has a filter that cannot be read ({problem}); showing the whole audit.
        </p>
      )}
      <AuditList page={page} query={query} />
    </>
  );
}
