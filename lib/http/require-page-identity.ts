import "server-only";
import { headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { cache } from "react";
import { countUsers } from "@/lib/server/auth/accounts";
import type { Identity } from "@/lib/server/auth/identity";
import { getDatabase } from "@/lib/server/database";
import { hasRole, type Role } from "@/lib/wire/roles";
import { lookUpIdentity } from "./require-identity";

/**
 * One read of the request's identity per render: the layout and the page share it. A lookup the
 * database could not answer throws (503's StoreUnavailableError), never reads as "nobody".
 */
const readRequestIdentity = cache(async (): Promise<Identity | null> => lookUpIdentity(await headers()));

/**
 * The first line of every signed-in page (and its layout), before it reads
 * anything: without an identity the request is redirected (to `/setup` on a
 * fresh database, else `/sign-in`), and an identity holding less than `role`
 * gets 403 with the page that says so (app/forbidden.tsx), and nothing else. A layout's check alone is not enough: Next renders
 * a page beside its layout, so a page that reads before checking sends what
 * it read along with the layout's redirect (docs/security.md).
 */
export async function requirePageIdentity(role: Role = "viewer"): Promise<Identity> {
  const identity = await readRequestIdentity();
  if (!identity) {
    redirect((await countUsers((await getDatabase()).db)) === 0 ? "/setup" : "/sign-in");
  }
  if (!hasRole(identity.role, role)) forbidden();
  return identity;
}
