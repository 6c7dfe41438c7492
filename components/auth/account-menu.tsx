import Link from "next/link";
import { signOutAction } from "@/app/actions/sign-out";
import type { Identity } from "@/lib/server/auth/identity";

/** Who is signed in, with what role, and the way out. */
export function AccountMenu({ identity }: { identity: Identity }) {
  return (
    <div className="account-menu">
      {identity.role === "admin" ? (
        <Link href="/admin">Users and tokens</Link>
      ) : (
        <Link href="/account">Your account</Link>
      )}
      <span className="account-name">
        <span className="account-name-text">{identity.name}</span>{" "}
        <span className="tag">{identity.role}</span>
      </span>
      <form action={signOutAction}>
        <button type="submit">Sign out</button>
      </form>
    </div>
  );
}
