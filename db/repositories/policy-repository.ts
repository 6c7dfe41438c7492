import { desc, sql } from "drizzle-orm";
import type { Db } from "../client";
import { policies } from "../schema";

export interface StoredPolicyVersion {
  version: number;
  document: string;
  mode: "live" | "shadow";
  publishedById: string;
  publishedByName: string;
  publishedAt: string;
}

/**
 * Appends a version (docs/policies.md#publishing-versions-and-shadow): the next number, in one
 * statement; two publishers racing get distinct numbers or one a key conflict, never one version twice.
 */
export async function insertPolicyVersion(
  db: Db,
  input: { document: string; mode: "live" | "shadow"; publishedById: string; publishedByName: string },
): Promise<StoredPolicyVersion> {
  const [row] = await db
    .insert(policies)
    .values({
      version: sql`(select coalesce(max(version), 0) + 1 from policies)`,
      document: input.document,
      mode: input.mode,
      publishedById: input.publishedById,
      publishedByName: input.publishedByName,
    })
    .returning();
  if (!row) throw new Error("the policy version was not stored");
  return toStored(row);
}

/** Every version, newest first. */
export async function listPolicyVersions(db: Db): Promise<StoredPolicyVersion[]> {
  const rows = await db.select().from(policies).orderBy(desc(policies.version));
  return rows.map(toStored);
}

/** The newest live version, and the newest shadow version published after it (an earlier shadow is over). */
export async function readPublishedVersions(
  db: Db,
): Promise<{ live: StoredPolicyVersion | null; shadow: StoredPolicyVersion | null }> {
  const rows = await db
    .select()
    .from(policies)
    .where(
      sql`${policies.version} in (select max(version) from policies where mode = 'live'
        union select max(version) from policies where mode = 'shadow')`,
    );
  const live = rows.find((row) => row.mode === "live") ?? null;
  const shadow =
    rows.find((row) => row.mode === "shadow" && (live === null || row.version > live.version)) ?? null;
  return { live: live && toStored(live), shadow: shadow && toStored(shadow) };
}

function toStored(row: typeof policies.$inferSelect): StoredPolicyVersion {
  return {
    version: row.version,
    document: row.document,
    mode: row.mode,
    publishedById: row.publishedById,
    publishedByName: row.publishedByName,
    publishedAt: row.publishedAt.toISOString(),
  };
}
