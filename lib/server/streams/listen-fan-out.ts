import "server-only";
import type { DatabaseHandle } from "@/db/client";
import { onEventsCommitted, RUN_EVENTS_CHANNEL } from "@/db/repositories/append-event";

/**
 * Called with the run and the highest seq of each committed write (from any
 * instance sharing the database). Listeners read what follows their last
 * event themselves: a notification says only that there is more.
 */
export type RunEventListener = (runId: string, seq: number) => void;

export interface RunEventHub {
  /** Listens to one run's events, or every run's with `"*"`; returns the unsubscribe function. */
  subscribe(runId: string | "*", listener: RunEventListener): Promise<() => void>;
}

const hubs = new WeakMap<DatabaseHandle, RunEventHub>();

/**
 * One LISTEN per database handle, fanned out to every open stream in this
 * process, and this process's own writes announced as they return (before
 * their NOTIFY comes back). A stream per LISTEN would hold a connection per
 * browser tab.
 * Notifications only say "something was committed"; streams read the events
 * themselves, in order, from the database.
 */
export function getRunEventHub(handle: DatabaseHandle): RunEventHub {
  let hub = hubs.get(handle);
  if (!hub) {
    hub = createRunEventHub(handle);
    hubs.set(handle, hub);
  }
  return hub;
}

/** How many runs' last announced seqs the hub remembers, to drop the NOTIFYs of what it has already announced. */
const REMEMBERED_RUNS = 10_000;

function createRunEventHub(handle: DatabaseHandle): RunEventHub {
  const listeners = new Map<string, Set<RunEventListener>>();
  let listening: Promise<unknown> | null = null;
  // The highest seq announced per run, most recent last: this process's own writes are announced
  // as they return, and their NOTIFYs, arriving after, are nothing new.
  const announced = new Map<string, number>();

  function dispatch(payload: string) {
    const separator = payload.lastIndexOf(":");
    const runId = payload.slice(0, separator);
    const seq = Number(payload.slice(separator + 1));
    const last = announced.get(runId);
    if (last !== undefined && last >= seq) return;
    announced.delete(runId);
    announced.set(runId, seq);
    if (announced.size > REMEMBERED_RUNS) {
      const oldest = announced.keys().next().value;
      if (oldest !== undefined) announced.delete(oldest);
    }
    for (const key of [runId, "*"]) {
      for (const listener of listeners.get(key) ?? []) listener(runId, seq);
    }
  }
  onEventsCommitted(handle.db, dispatch);

  return {
    async subscribe(runId, listener) {
      if (!listening) {
        listening = handle.listen(RUN_EVENTS_CHANNEL, dispatch);
        listening.catch(() => {
          listening = null;
        });
      }
      await listening;
      let set = listeners.get(runId);
      if (!set) {
        set = new Set();
        listeners.set(runId, set);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(runId);
      };
    },
  };
}
