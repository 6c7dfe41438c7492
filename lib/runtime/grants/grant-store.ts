/** Where grants are kept (docs/policies.md#grants): one port, a memory and a database adapter, one contract. */
import type { NewToolGrant, ToolGrant } from "./tool-grant";

export interface GrantStore {
  /** Stores a new grant (durable before it resolves) and returns it as stored. */
  create(grant: NewToolGrant): Promise<ToolGrant>;
  /** One grant by id, live or not; null when there is none. */
  get(id: string): Promise<ToolGrant | null>;
  /**
   * The grants not revoked, not expired at `now` and with uses left, oldest first; only those of
   * `toolNames` when given, only those scoped to `runId` when given.
   */
  listLive(filter: { now: Date; toolNames?: readonly string[]; runId?: string }): Promise<ToolGrant[]>;
  /**
   * Takes one use of the grant, atomically: true when it was live at `now` with a use left (and
   * that use is now spent), false otherwise. Of two callers racing for the last use, exactly one
   * gets true.
   */
  takeUse(id: string, now: Date): Promise<boolean>;
  /** Revokes a live grant; null when there is no such grant or it was already revoked. */
  revoke(id: string, by: { name: string; id: string | null }, now: Date): Promise<ToolGrant | null>;
}
