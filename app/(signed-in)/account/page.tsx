import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { TokensPanel } from "@/components/admin/tokens-panel";
import { getDatabase } from "@/db/client";
import { listTokens } from "@/lib/server/auth/accounts";
import { readIdentity } from "@/lib/server/auth/identity";

export const metadata: Metadata = { title: "Your tokens · Tool Playground" };

/** Anyone signed in: their own API tokens, with a role no higher than theirs. */
export default async function AccountPage() {
  const identity = await readIdentity(await headers());
  if (!identity) redirect("/sign-in");
  const tokens = (await listTokens((await getDatabase()).db)).filter(
    (token) => token.ownerEmail === identity.email,
  );
  return (
    <div className="admin-page">
      <h1>Your API tokens</h1>
      <p className="muted">
        Signed in as {identity.name} ({identity.email}), role {identity.role}.
      </p>
      <TokensPanel tokens={tokens} ownEmail={identity.email} />
    </div>
  );
}
