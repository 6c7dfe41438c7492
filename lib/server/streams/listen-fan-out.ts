import "server-only";
import type { DatabaseHandle } from "@/db/client";
import { observeDirectWrites, RUN_EVENTS_CHANNEL } from "@/db/repositories/append-event";
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
 * process, and this process's own writes announced as they return. A stream
 * per LISTEN would hold a connection per browser tab.
 * A NOTIFY only says "something was committed"; streams read those events
 * themselves, in order, from the database. This process's own writes come
 * with their events, which need no reading; a NOTIFY of a run heard while
 * such a write of it is on its way waits for the write to return.
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

  // The listeners also told of this process's own writes when their seq was announced already.
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
  // This process's writes of each run on their way (sent, not yet returned), and the highest seq
  // NOTIFYd of such a run meanwhile. That NOTIFY is most often the write's own, arriving before the
  // write returns: announced at once, it would have the run's readers read the events the write
  // hands them a moment later. It waits for the run's writes to return, which always happens
  // (committed or failed), and is then nothing new, or (another instance's later write) announced.
  const writing = new Map<string, number>();
  const notifiedWhileWriting = new Map<string, number>();

  function dispatch(payload: string) {
    const separator = payload.lastIndexOf(":");
    const runId = payload.slice(0, separator);
    const seq = Number(payload.slice(separator + 1));
    if (writing.has(runId)) {
      notifiedWhileWriting.set(runId, Math.max(seq, notifiedWhileWriting.get(runId) ?? 0));
      return;
    }
    announce(runId, seq);
  }
  observeDirectWrites(handle.db, (runId) => {
    writing.set(runId, (writing.get(runId) ?? 0) + 1);
    return (committed) => {
      // The bookkeeping first: a listener that throws must not leave the run's NOTIFYs held.
      const left = (writing.get(runId) ?? 1) - 1;
      const notified = left > 0 ? undefined : notifiedWhileWriting.get(runId);
      if (left > 0) writing.set(runId, left);
      else {
        writing.delete(runId);
        notifiedWhileWriting.delete(runId);
      }
      try {
        if (committed) announce(runId, committed.lastSeq, committed.events);
      } finally {
        if (notified !== undefined) announce(runId, notified);
      }
    };
  });

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
