import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { FirstAdminForm } from "@/components/auth/first-admin-form";
import { countUsers } from "@/lib/server/auth/accounts";
import { getDatabase } from "@/lib/server/database";

export const metadata: Metadata = { title: "Set up · Tool Playground" };

/** Shown once, on a fresh database: the first administrator; after that, everyone signs in. */
export default async function SetupPage() {
  if ((await countUsers((await getDatabase()).db)) > 0) redirect("/sign-in");
  return (
    <div className="panel auth-panel">
      <h1>Create the first administrator</h1>
      <p className="muted">
        This database has no users yet. The administrator you create here can add everyone else, with the role
        each needs: viewer, operator, approver or admin.
      </p>
      <FirstAdminForm />
    </div>
  );
}
