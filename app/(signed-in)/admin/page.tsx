import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { AccountsAdmin } from "@/components/admin/accounts-admin";
import { getDatabase } from "@/db/client";
import { listTokens, listUsers } from "@/lib/server/auth/accounts";
import { readIdentity } from "@/lib/server/auth/identity";

export const metadata: Metadata = { title: "Users and tokens · Tool Playground" };

/** Admins only: who can sign in, with which role, and the API tokens that act for them. */
export default async function AdminPage() {
  const identity = await readIdentity(await headers());
  if (identity?.role !== "admin") notFound();
  const { db } = await getDatabase();
  return <AccountsAdmin users={await listUsers(db)} tokens={await listTokens(db)} />;
}
