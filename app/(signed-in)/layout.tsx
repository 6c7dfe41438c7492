import type { ReactNode } from "react";
import { ViewerProvider } from "@/components/auth/viewer-context";
import { DatabaseUnreachable } from "@/components/ui/database-unreachable";
import { isDatabaseUnavailable } from "@/lib/http/error-response";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import type { Identity } from "@/lib/server/auth/identity";

/**
 * Every page but sign-in and setup: signed-in people only; a fresh database first asks for its administrator.
 * Each page checks for itself too (requirePageIdentity): a page renders beside its layout, not after it.
 * While the database is out of reach the page says so and retries, rather than sending a signed-in
 * person to sign in (a page whose own check meets the outage reaches app/error.tsx, which says the same).
 */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  let identity: Identity;
  try {
    identity = await requirePageIdentity();
  } catch (error) {
    if (isDatabaseUnavailable(error)) return <DatabaseUnreachable />;
    throw error;
  }
  return (
    <ViewerProvider viewer={{ name: identity.name, email: identity.email, role: identity.role }}>
      {children}
    </ViewerProvider>
  );
}
