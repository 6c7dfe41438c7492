import type { Metadata } from "next";
import { AccountChangesList } from "@/components/audit/account-changes-list";
import { AuditList } from "@/components/audit/audit-list";
import { getDatabase } from "@/db/client";
import { auditFilterOf, auditQuerySchema } from "@/lib/http/list-queries";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { listAccountEvents } from "@/lib/server/auth/account-changes";
import { getRunService } from "@/lib/server/get-run-service";
import { readListQuery } from "@/lib/server/read-list-query";

export const metadata: Metadata = { title: "Audit · Tool Playground" };
export const dynamic = "force-dynamic";

/**
 * The approvals audit, newest first, filtered and paged (`?outcome=&actor=&tool=&run=&before=`);
 * for admins, the latest account changes below it.
 */
export default async function AuditRoute({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const identity = await requirePageIdentity();
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
      {identity.role === "admin" && (
        <AccountChangesList events={await listAccountEvents((await getDatabase()).db, { limit: 50 })} />
      )}
    </>
  );
}
