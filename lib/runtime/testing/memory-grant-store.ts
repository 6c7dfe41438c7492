import type { GrantStore } from "../grants/grant-store";
import type { ToolGrant } from "../grants/tool-grant";

/** The grants in memory, for tests and a headless host: the same contract as the table (grant-store.contract.ts). */
export function createMemoryGrantStore(now: () => number = Date.now): GrantStore {
  const grants = new Map<string, ToolGrant>();
  const isLive = (grant: ToolGrant, at: Date) =>
    grant.revokedAt === null &&
    (grant.expiresAt === null || Date.parse(grant.expiresAt) > at.getTime()) &&
    (grant.maxUses === null || grant.uses < grant.maxUses);
  return {
    async create(grant) {
      const stored: ToolGrant = {
        ...grant,
        uses: 0,
        createdAt: new Date(now()).toISOString(),
        revokedAt: null,
        revokedById: null,
        revokedByName: null,
      };
      grants.set(stored.id, stored);
      return { ...stored };
    },
    async get(id) {
      const grant = grants.get(id);
      return grant ? { ...grant } : null;
    },
    async listLive(filter) {
      return [...grants.values()]
        .filter((grant) => isLive(grant, filter.now))
        .filter((grant) => !filter.toolNames || filter.toolNames.includes(grant.toolName))
        .filter((grant) => !filter.runId || grant.runId === filter.runId)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
        .map((grant) => ({ ...grant }));
    },
    // One synchronous check-and-add: JavaScript runs it whole, so a racing caller sees the spent use.
    async takeUse(id, at) {
      const grant = grants.get(id);
      if (!grant || !isLive(grant, at)) return false;
      grant.uses += 1;
      return true;
    },
    async revoke(id, by, at) {
      const grant = grants.get(id);
      if (!grant || grant.revokedAt !== null) return null;
      grant.revokedAt = at.toISOString();
      grant.revokedById = by.id;
      grant.revokedByName = by.name;
      return { ...grant };
    },
  };
}
