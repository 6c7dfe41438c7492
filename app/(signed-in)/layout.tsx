import type { ReactNode } from "react";
import { ViewerProvider } from "@/components/auth/viewer-context";
import { requirePageIdentity } from "@/lib/http/require-page-identity";

/**
 * Every page but sign-in and setup: signed-in people only; a fresh database first asks for its administrator.
 * Each page checks for itself too (requirePageIdentity): a page renders beside its layout, not after it.
 */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const identity = await requirePageIdentity();
  return (
    <ViewerProvider viewer={{ name: identity.name, email: identity.email, role: identity.role }}>
      {children}
    </ViewerProvider>
  );
}
