import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { signOutAction } from "@/app/actions/sign-out";
import { type Identity, readIdentity } from "@/lib/server/auth/identity";

export const metadata: Metadata = { title: "Not allowed · Tool Playground" };

/**
 * What a visitor sees on a page above their role (`forbidden()` in
 * lib/http/require-page-identity.ts): 403, and nothing of the page. `forbidden()` carries nothing,
 * so this page cannot know which role was needed (viewer for most pages, operator for /insights,
 * admin for /admin and /policies); it reads who the visitor is and says what limits them instead.
 * It reads them as the root layout's header does, not through requirePageIdentity's read (which
 * throws while the database is out of reach): Next draws this element with every page, shown or not.
 */
export default async function Forbidden() {
  const identity = await readIdentity(await headers());
  const { heading, reason } = describeRefusal(identity);
  return (
    <div className="panel">
      <h1>{heading}</h1>
      <p>{reason}</p>
      {identity?.via === "session" ? (
        <>
          <p>
            <Link href="/">Back to the playground</Link> · <Link href="/account">Your account</Link>
          </p>
          <form action={signOutAction}>
            <button type="submit">Sign out to sign in as someone else</button>
          </form>
        </>
      ) : (
        <p>
          <Link href="/sign-in">Sign in</Link>
        </p>
      )}
    </div>
  );
}

/**
 * Why the visitor was refused, as the API's 403 says it (lib/http/require-identity.ts): their role,
 * or the API token they sent. Roles are ordered, so "a role you do not have" is always a higher one.
 */
function describeRefusal(identity: Identity | null): { heading: string; reason: string } {
  if (identity?.via === "token" && identity.role === "agent") {
    return {
      heading: "Agents use the agent API",
      reason:
        "The API token sent is an agent's: agents use the agent API (/api/agent/runs), never the playground's pages. Sign in as a person to see this page.",
    };
  }
  const heading = "This page needs another role";
  // Refused a moment ago, gone now: the session ended in between.
  if (identity === null)
    return { heading, reason: "This page needs a role you do not have, and you are no longer signed in." };
  if (identity.via === "token") {
    return {
      heading,
      reason: `This page needs a role the API token sent does not have: it acts as ${identity.role} for ${identity.email}, who is ${identity.personRole}.`,
    };
  }
  return {
    heading,
    reason: `This page needs a role you do not have: you are signed in as ${identity.email}, who is ${identity.role}. An administrator can change your role on the Users and tokens page.`,
  };
}
