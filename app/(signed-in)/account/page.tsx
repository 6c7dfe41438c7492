import type { Metadata } from "next";
import { NotificationPreferencesForm } from "@/components/account/notification-preferences-form";
import { OwnPasswordForm } from "@/components/admin/own-password-form";
import { TokensPanel } from "@/components/admin/tokens-panel";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { listTokens } from "@/lib/server/auth/accounts";
import { getDatabase } from "@/lib/server/database";
import { readOwnPreferences } from "@/lib/server/notifications/own-preferences";
import { tokenRolesFor } from "@/lib/wire/roles";

export const metadata: Metadata = { title: "Your account · Tool Playground" };

/**
 * Anyone signed in: their own password, API tokens (with a role no higher than theirs) and
 * notifications (docs/notifications.md#your-own-settings).
 */
export default async function AccountPage() {
  const identity = await requirePageIdentity();
  const { db } = await getDatabase();
  const tokens = (await listTokens(db)).filter((token) => token.ownerEmail === identity.email);
  const notifications = await readOwnPreferences(db, identity.userId);
  return (
    <div className="admin-page">
      <h1>Your account</h1>
      <p className="muted">
        Signed in as {identity.name} ({identity.email}), role {identity.role}.
      </p>
      {identity.via === "session" && <OwnPasswordForm />}
      <NotificationPreferencesForm
        channels={notifications.channels}
        mutedChannels={notifications.preferences.mutedChannels}
        quietHours={notifications.preferences.quietHours}
      />
      <TokensPanel
        tokens={tokens}
        ownEmail={identity.email}
        ownTokenRoles={tokenRolesFor(identity.personRole, identity.role)}
      />
    </div>
  );
}
