import { and, asc, eq, gt, inArray, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { GrantStore, ToolGrant } from "@/lib/runtime";
import type { Db } from "../client";
import { toolGrants } from "../schema";

/** The grants table as the runtime's `GrantStore` (docs/policies.md#grants). */
export function createGrantRepository(db: Db): GrantStore {
  const isLive = (now: Date): SQL =>
    and(
      isNull(toolGrants.revokedAt),
      or(isNull(toolGrants.expiresAt), gt(toolGrants.expiresAt, now)),
      or(isNull(toolGrants.maxUses), lt(toolGrants.uses, toolGrants.maxUses)),
    ) as SQL;
  return {
    async create(grant) {
      const [row] = await db
        .insert(toolGrants)
        .values({ ...grant, expiresAt: grant.expiresAt === null ? null : new Date(grant.expiresAt) })
        .returning();
      if (!row) throw new Error("the grant was not stored");
      return toGrant(row);
    },
    async get(id) {
      const [row] = await db.select().from(toolGrants).where(eq(toolGrants.id, id));
      return row ? toGrant(row) : null;
    },
    async listLive(filter) {
      const conditions: SQL[] = [isLive(filter.now)];
      if (filter.toolNames) conditions.push(inArray(toolGrants.toolName, [...filter.toolNames]));
      if (filter.runId) conditions.push(eq(toolGrants.runId, filter.runId));
      const rows = await db
        .select()
        .from(toolGrants)
        .where(and(...conditions))
        .orderBy(asc(toolGrants.createdAt), asc(toolGrants.id));
      return rows.map(toGrant);
    },
    // One statement: the row lock makes a second instance re-check the limit after the first one's use.
    async takeUse(id, now) {
      const rows = await db
        .update(toolGrants)
        .set({ uses: sql`${toolGrants.uses} + 1` })
        .where(and(eq(toolGrants.id, id), isLive(now)))
        .returning({ id: toolGrants.id });
      return rows.length === 1;
    },
    async revoke(id, by, now) {
      const [row] = await db
        .update(toolGrants)
        .set({ revokedAt: now, revokedById: by.id, revokedByName: by.name })
        .where(and(eq(toolGrants.id, id), isNull(toolGrants.revokedAt)))
        .returning();
      return row ? toGrant(row) : null;
    },
  };
}

function toGrant(row: typeof toolGrants.$inferSelect): ToolGrant {
  return {
    ...row,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}
