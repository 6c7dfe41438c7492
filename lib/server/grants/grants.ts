import "server-only";
import { inArray } from "drizzle-orm";
import { user } from "@/db/auth-schema";
import type { Db } from "@/db/client";
import { createGrantRepository } from "@/db/repositories/grant-repository";
import type { ToolGrant } from "@/lib/runtime";
import type { Identity } from "@/lib/server/auth/request-identity";
import { getLogger } from "@/lib/server/ops/logger";
import type { ListedGrant } from "@/lib/wire/listed-grant";
import { RequestRefusal } from "@/lib/wire/request-refusal";

export type { ToolGrant };

/** The live grants, oldest first; those scoped to `runId` only, when given; each with its starter's name. */
export async function listLiveGrants(
  db: Db,
  filter: { runId?: string },
  now = new Date(),
): Promise<ListedGrant[]> {
  const grants = await createGrantRepository(db).listLive({
    now,
    ...(filter.runId ? { runId: filter.runId } : {}),
  });
  const starterIds = [...new Set(grants.flatMap((grant) => (grant.starterId ? [grant.starterId] : [])))];
  const names = new Map(
    starterIds.length === 0
      ? []
      : (
          await db.select({ id: user.id, name: user.name }).from(user).where(inArray(user.id, starterIds))
        ).map(({ id, name }) => [id, name] as const),
  );
  return grants.map((grant) => ({
    ...grant,
    starterName: grant.starterId ? (names.get(grant.starterId) ?? null) : null,
  }));
}

/**
 * Revokes a grant as the signed-in person: only the one who gave it, or an admin (403
 * `forbidden` otherwise); 404 when there is no live grant of that id. The revocation is recorded
 * on the grant's row (who, when) before it is answered; calls planned from then on are gated again.
 */
export async function revokeGrant(
  db: Db,
  grantId: string,
  identity: Identity,
  now = new Date(),
): Promise<ToolGrant> {
  const store = createGrantRepository(db);
  const grant = await store.get(grantId);
  if (!grant || grant.revokedAt !== null) {
    throw RequestRefusal.of("not_found", `There is no live grant ${grantId} to revoke.`);
  }
  if (identity.role !== "admin" && grant.createdById !== identity.userId) {
    throw RequestRefusal.of(
      "forbidden",
      `Grant ${grantId} was given by ${grant.createdByName}; only they or an admin may revoke it.`,
    );
  }
  const revoked = await store.revoke(grantId, { name: identity.name, id: identity.userId }, now);
  if (!revoked) throw RequestRefusal.of("not_found", `There is no live grant ${grantId} to revoke.`);
  getLogger().info(
    { grantId, toolName: revoked.toolName, scope: revoked.scope, userId: identity.userId },
    "grant revoked",
  );
  return revoked;
}
