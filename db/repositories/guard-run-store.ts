import { type RunStore, StoreUnavailableError } from "@/lib/runtime";
import { isNeverConnectedError, isTransientDatabaseError, withDatabaseRetries } from "../database-errors";

/**
 * Methods that change nothing, or nothing but what doing them again sets to
 * the same (a lease from now): tried again after any transient failure.
 */
const SAFE_TO_REPEAT = new Set<keyof RunStore>([
  "getRun",
  "readEvents",
  "readLatestEvent",
  "listApprovals",
  "listExpiredWaits",
  "renewLease",
]);

/**
 * The store as the runtime sees it while the database comes and goes: a
 * read (and a lease renewal) is tried again with backoff after a transient
 * failure, a write only when it never reached the server (every write is
 * fenced by its claim, but one cut off mid-commit may have happened); a
 * transient failure that outlasts the retries is a `StoreUnavailableError`,
 * which stops a worker (recovery goes on from what is stored) and which
 * every surface answers as 503 `database_unavailable`. Refusals pass
 * through untouched.
 */
export function guardRunStore(store: RunStore): RunStore {
  const guarded = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(store) as Array<[keyof RunStore, unknown]>) {
    if (typeof method !== "function") continue;
    const mayRetry = SAFE_TO_REPEAT.has(name) ? isTransientDatabaseError : isNeverConnectedError;
    guarded[name] = async (...args: unknown[]) => {
      try {
        return await withDatabaseRetries(() => method.apply(store, args), mayRetry);
      } catch (error) {
        if (isTransientDatabaseError(error)) {
          throw new StoreUnavailableError("The database is unreachable; try again shortly.", {
            cause: error,
          });
        }
        throw error;
      }
    };
  }
  return guarded as unknown as RunStore;
}
