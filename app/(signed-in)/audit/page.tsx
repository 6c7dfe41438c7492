import type { Metadata } from "next";
import { AccountChangesList } from "@/components/audit/account-changes-list";
import { AuditList } from "@/components/audit/audit-list";
import { EscalationsList } from "@/components/audit/escalations-list";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { listAccountEvents } from "@/lib/server/auth/account-changes";
import { getDatabase } from "@/lib/server/database";
import { readListQuery } from "@/lib/server/lists/read-list-query";
import { getRunService } from "@/lib/server/server-context";
import { auditFilterOf, auditQuerySchema } from "@/lib/wire/list-filters";

export const metadata: Metadata = { title: "Audit · Tool Playground" };
export const dynamic = "force-dynamic";

/**
 * The approvals audit, newest first, filtered and paged (`?outcome=&actor=&tool=&run=&before=`);
 * the latest escalation steps that fired (narrowed by `?run=` too); for admins, the latest account
 * changes below them.
 */
export default async function AuditRoute({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const identity = await requirePageIdentity();
  const { query, problem } = readListQuery(auditQuerySchema, await searchParams);
  const service = await getRunService();
  const page = await service.listAudit({
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
      <EscalationsList
        escalations={await service.listEscalations({ limit: 50, run: query.run })}
        run={query.run}
      />
      {identity.role === "admin" && (
        <AccountChangesList events={await listAccountEvents((await getDatabase()).db, { limit: 50 })} />
      )}
    </>
  );
}
