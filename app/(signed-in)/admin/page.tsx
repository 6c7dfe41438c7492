import type { Metadata } from "next";
import { AccountsAdmin } from "@/components/admin/accounts-admin";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { listTokens, listUsers } from "@/lib/server/auth/accounts";
import { getDatabase } from "@/lib/server/database";

export const metadata: Metadata = { title: "Users and tokens · Tool Playground" };

/** Admins only: who can sign in, with which role, and the API tokens that act for them. */
export default async function AdminPage() {
  const identity = await requirePageIdentity("admin");
  const { db } = await getDatabase();
  return (
    <AccountsAdmin users={await listUsers(db)} tokens={await listTokens(db)} ownEmail={identity.email} />
  );
}
