"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { forgetAuthChange } from "@/lib/server/auth/identity-cache";
import { getAuth } from "@/lib/server/server-context";
import { closeStreamsOfSession } from "@/lib/server/streams/open-streams";

/** Ends the session (its cookie is cleared), closes its open streams, and goes to sign-in. */
export async function signOutAction() {
  const requestHeaders = await headers();
  const auth = await getAuth();
  const found = await auth.api.getSession({ headers: requestHeaders });
  await auth.api.signOut({ headers: requestHeaders });
  if (found) {
    // This instance forgets the session before it answers; the others as they hear its trigger.
    forgetAuthChange({ session: found.session.id });
    closeStreamsOfSession(found.session.id);
  }
  redirect("/sign-in");
}
