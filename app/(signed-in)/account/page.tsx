import type { Metadata } from "next";
import { OwnPasswordForm } from "@/components/admin/own-password-form";
import { TokensPanel } from "@/components/admin/tokens-panel";
import { getDatabase } from "@/db/client";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { listTokens } from "@/lib/server/auth/accounts";

export const metadata: Metadata = { title: "Your account · Tool Playground" };

/** Anyone signed in: their own password and API tokens (with a role no higher than theirs). */
export default async function AccountPage() {
  const identity = await requirePageIdentity();
  const tokens = (await listTokens((await getDatabase()).db)).filter(
    (token) => token.ownerEmail === identity.email,
  );
  return (
    <div className="admin-page">
      <h1>Your account</h1>
      <p className="muted">
        Signed in as {identity.name} ({identity.email}), role {identity.role}.
      </p>
      {identity.via === "session" && <OwnPasswordForm />}
      <TokensPanel tokens={tokens} ownEmail={identity.email} />
    </div>
  );
}
