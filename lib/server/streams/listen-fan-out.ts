import "server-only";
import type { DatabaseHandle } from "@/db/client";
import { type CommittedEvents, onEventsCommitted, RUN_EVENTS_CHANNEL } from "@/db/repositories/append-event";
import type { StoredRunEvent } from "@/lib/runtime";

/**
 * Called with the run and the highest seq of each committed write (from any
 * instance sharing the database). Of a write this process committed itself,
 * `committed` gives its events (decoded when first asked); of any other, the
 * notification says only that there is more, and listeners read what follows
 * their last event themselves.
 */
export type RunEventListener = (
  runId: string,
  seq: number,
  committed?: () => readonly StoredRunEvent[],
) => void;

export interface RunEventHub {
  /**
   * Listens to one run's events, or every run's with `"*"`; returns the unsubscribe function.
   * A listener hears each seq once, however it was announced. With `ownEvents`, it is also told
   * of this process's own write, with its events, when that write's NOTIFY (which says only that
   * there is more) came first: the events still need no reading.
   */
  subscribe(
    runId: string | "*",
    listener: RunEventListener,
    options?: { ownEvents?: boolean },
  ): Promise<() => void>;
}

const hubs = new WeakMap<DatabaseHandle, RunEventHub>();

/**
 * One LISTEN per database handle, fanned out to every open stream in this
 * process, and this process's own writes announced as they return (before
 * their NOTIFY comes back). A stream per LISTEN would hold a connection per
 * browser tab.
 * A NOTIFY only says "something was committed"; streams read those events
 * themselves, in order, from the database. This process's own writes come
 * with their events, which need no reading.
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

  // The listeners also told of this process's own writes whose NOTIFY came first.
  const wantOwnEvents = new WeakSet<RunEventListener>();

  function announce(runId: string, seq: number, committed?: () => readonly StoredRunEvent[]) {
    const last = announced.get(runId);
    const isNew = last === undefined || last < seq;
    if (!isNew && !committed) return;
    if (isNew) {
      announced.delete(runId);
      announced.set(runId, seq);
      if (announced.size > REMEMBERED_RUNS) {
        const oldest = announced.keys().next().value;
        if (oldest !== undefined) announced.delete(oldest);
      }
    }
    for (const key of [runId, "*"]) {
      for (const listener of listeners.get(key) ?? []) {
        if (isNew || wantOwnEvents.has(listener)) listener(runId, seq, committed);
      }
    }
  }
  function dispatch(payload: string) {
    const separator = payload.lastIndexOf(":");
    announce(payload.slice(0, separator), Number(payload.slice(separator + 1)));
  }
  onEventsCommitted(handle.db, (committed: CommittedEvents) =>
    announce(committed.runId, committed.lastSeq, committed.events),
  );

  return {
    async subscribe(runId, listener, options) {
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
      if (options?.ownEvents) wantOwnEvents.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(runId);
      };
    },
  };
}
