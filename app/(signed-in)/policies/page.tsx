import type { Metadata } from "next";
import { PolicyPage } from "@/components/policies/policy-page";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { getDatabase } from "@/lib/server/database";
import { listPolicyVersions } from "@/lib/server/policies/policies";

export const metadata: Metadata = { title: "Approval policy · Tool Playground" };

/** Admins only (the routes it calls check again): the approval policy, its versions, editor and backtest. */
export default async function PoliciesPage() {
  await requirePageIdentity("admin");
  return <PolicyPage initialVersions={await listPolicyVersions((await getDatabase()).db)} />;
}
