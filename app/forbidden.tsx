import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Admins only · Tool Playground" };

/**
 * What a signed-in person sees on a page above their role (`forbidden()` in
 * lib/http/require-page-identity.ts): 403, and nothing of the page. Only the
 * admin pages ask for more than viewer, hence the wording.
 */
export default function Forbidden() {
  return (
    <div className="panel">
      <h1>Admins only</h1>
      <p>
        This page needs the admin role, which your account does not have. An administrator can change your
        role on the Users and tokens page.
      </p>
      <p>
        <Link href="/">Back to the playground</Link> · <Link href="/account">Your account</Link>
      </p>
    </div>
  );
}
