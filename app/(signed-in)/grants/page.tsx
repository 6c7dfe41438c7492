import type { Metadata } from "next";
import { GrantList } from "@/components/grants/grant-list";
import { requirePageIdentity } from "@/lib/http/require-page-identity";

export const metadata: Metadata = { title: "Grants · Tool Playground" };
export const dynamic = "force-dynamic";

/**
 * Every live scoped grant (docs/policies.md#grants): a page of its own, not a section of /admin,
 * because approvers give and revoke grants and everyone whose runs they cover should see them.
 */
export default async function GrantsRoute() {
  await requirePageIdentity("viewer");
  return (
    <section className="panel" aria-labelledby="grants-heading">
      <h1 id="grants-heading">Grants</h1>
      <p className="muted">
        Calls these grants cover run without asking, each audited as an automatic approval naming its grant. A
        policy rule that matches a call decides before any grant. Only a grant&apos;s giver or an admin
        revokes it.
      </p>
      <GrantList label="Live grants" />
    </section>
  );
}
