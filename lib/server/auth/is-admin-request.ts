import "server-only";
import { hasRole } from "@/lib/wire/roles";
import { readIdentity } from "./identity";

/**
 * Whether a request comes from an admin (session or token). For routes anyone
 * may call (health, readiness) that show an admin more than a stranger; a
 * request with no credentials is answered without asking the database, and a
 * failure to read the identity makes nobody an admin.
 */
export async function isAdminRequest(headers: Headers): Promise<boolean> {
  if (!headers.has("authorization") && !headers.has("cookie")) return false;
  try {
    const identity = await readIdentity(headers);
    return identity !== null && hasRole(identity.role, "admin");
  } catch {
    return false;
  }
}
