import "server-only";
import { LostClaimError, type RunStore } from "@/lib/runtime";
import type { Metrics } from "./metrics";

/** The store's writes: each commits a change and its events together, so their time is the event-append latency. */
const TIMED_WRITES: ReadonlySet<string> = new Set([
  "createRun",
  "appendEvent",
  "recordStep",
  "startCalls",
  "settleCalls",
  "invalidateCalls",
  "finishStep",
  "suspendRun",
  "finishRun",
  "recordApproval",
  "claimAndRecordDecision",
]);

/** A run store that times its writes and counts the claims its workers lost; reads pass straight through. */
export function instrumentStore(store: RunStore, metrics: Metrics): RunStore {
  const wrapped = new Map<string, unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== "string" || !TIMED_WRITES.has(property) || typeof value !== "function")
        return value;
      let timed = wrapped.get(property);
      if (!timed) {
        const write = value as (...args: unknown[]) => Promise<unknown>;
        timed = async (...args: unknown[]) => {
          const stop = metrics.storeWriteSeconds.startTimer({ operation: property });
          try {
            return await write.apply(target, args);
          } catch (error) {
            if (LostClaimError.isInstance(error)) metrics.lostClaims.inc();
            throw error;
          } finally {
            stop();
          }
        };
        wrapped.set(property, timed);
      }
      return timed;
    },
  });
}
