import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { readSignInTarget } from "@/lib/http/sign-in-target";
import { countUsers } from "@/lib/server/auth/accounts";
import { readIdentity } from "@/lib/server/auth/identity";
import { getDatabase } from "@/lib/server/database";

export const metadata: Metadata = { title: "Sign in · Tool Playground" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  if (await readIdentity(await headers())) redirect("/");
  if ((await countUsers((await getDatabase()).db)) === 0) redirect("/setup");
  const { next } = await searchParams;
  const target = readSignInTarget(next);
  return (
    <div className="panel auth-panel">
      <h1>Sign in</h1>
      <p className="muted">Every decision is recorded under the name you sign in with.</p>
      <SignInForm next={target} />
    </div>
  );
}
