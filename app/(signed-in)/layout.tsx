import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ViewerProvider } from "@/components/auth/viewer-context";
import { getDatabase } from "@/db/client";
import { countUsers } from "@/lib/server/auth/accounts";
import { readIdentity } from "@/lib/server/auth/identity";

/** Every page but sign-in and setup: signed-in people only; a fresh database first asks for its administrator. */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const identity = await readIdentity(await headers());
  if (!identity) {
    redirect((await countUsers((await getDatabase()).db)) === 0 ? "/setup" : "/sign-in");
  }
  return (
    <ViewerProvider viewer={{ name: identity.name, email: identity.email, role: identity.role }}>
      {children}
    </ViewerProvider>
  );
}
