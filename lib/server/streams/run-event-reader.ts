import "server-only";
import type { StoredRunEvent } from "@/lib/runtime";
import type { RunEventHub } from "./listen-fan-out";
import { createSerialTask } from "./serial-task";

/** Receives a contiguous batch of a run's newly committed events, in seq order. */
export type EventBatchListener = (events: readonly StoredRunEvent[]) => void;

export interface RunEventFeed {
  /**
   * Hands `listener` every batch of `runId`'s events committed from now on.
   * `afterSeq` is where the listener stands, so the feed knows where reading
   * may start.
   */
  follow(runId: string, afterSeq: number, listener: EventBatchListener): Promise<FollowedRun>;
}

export interface FollowedRun {
  stop(): void;
  /**
   * The follower read these events itself (the last page of its replay, in seq order). The feed
   * hands on those it had not, to every follower (a follower dedupes by seq), and stands after
   * them: the next write of this process, a decision made on the page that replayed them, is then
   * handed on unread instead of read back.
   */
  readByFollower(events: readonly StoredRunEvent[]): void;
}

/** A committed write's events when they follow `readUpTo` without a gap; otherwise null (they are read). */
function followingEvents(
  committed: (() => readonly StoredRunEvent[]) | undefined,
  readUpTo: number,
  onError: (error: unknown) => void,
): readonly StoredRunEvent[] | null {
  if (!committed) return null;
  try {
    const events = committed();
    return events[0]?.seq === readUpTo + 1 ? events : null;
  } catch (error) {
    onError(error);
    return null;
  }
}

/** The most events the feed reads at once: a write appends far fewer. */
export const MAX_FEED_BATCH = 500;

interface Followed {
  listeners: Set<EventBatchListener>;
  /** The highest seq read (and handed out) so far. */
  readUpTo: number;
  /** The highest seq announced so far. */
  announced: number;
  read(): void;
  /** The one hub subscription of this run in this process. */
  subscribed: Promise<() => void>;
  /** Hands every listener what of a batch is after `readUpTo`. */
  hand(events: readonly StoredRunEvent[]): void;
}

/**
 * One reader per followed run in this process, however many streams follow
 * it: on each notification the run's new events are read once and handed to
 * every listener, so the database work per event does not grow with the
 * number of open pages; the events of this process's own writes are handed
 * on as they return, unread, when they follow what was handed before. A
 * listener behind the batch it gets (it joined mid-way, or missed one) reads
 * the gap itself.
 */
export function createRunEventFeed(
  hub: RunEventHub,
  readEvents: (runId: string, afterSeq: number, limit?: number) => Promise<StoredRunEvent[]>,
  onError: (error: unknown) => void,
): RunEventFeed {
  const followed = new Map<string, Followed>();

  function start(runId: string, afterSeq: number): Followed {
    const read = createSerialTask(async () => {
      for (;;) {
        // Only what is new: a first follower that starts at 0 of a long run must not make the
        // feed read (and hand out) the whole history. Listeners behind the batch read the gap.
        const from = Math.max(entry.readUpTo, entry.announced - MAX_FEED_BATCH);
        const events = await readEvents(runId, from, MAX_FEED_BATCH);
        // What this process committed meanwhile may have been handed out already: hand skips it.
        hand(events);
        if (events.length < MAX_FEED_BATCH) return;
      }
    }, onError);
    const entry: Followed = {
      listeners: new Set(),
      readUpTo: afterSeq,
      announced: afterSeq,
      read,
      hand,
      subscribed: hub.subscribe(
        runId,
        (_, seq, committed) => {
          entry.announced = Math.max(entry.announced, seq);
          if (seq <= entry.readUpTo) return;
          // This process's own write, right after what was handed out: its events need no reading.
          const events =
            entry.listeners.size > 0 ? followingEvents(committed, entry.readUpTo, onError) : null;
          if (events?.at(-1)?.seq === seq) hand(events);
          else read();
        },
        { ownEvents: true },
      ),
    };
    /**
     * Hands every listener those of a seq-ordered batch after `readUpTo` (a listener behind them
     * reads the gap), and stands after them.
     */
    function hand(batch: readonly StoredRunEvent[]) {
      const events = batch.filter((event) => event.seq > entry.readUpTo);
      const last = events.at(-1);
      if (!last) return;
      entry.readUpTo = last.seq;
      for (const listener of entry.listeners) listener(events);
    }
    followed.set(runId, entry);
    return entry;
  }

  return {
    async follow(runId, afterSeq, listener) {
      const entry = followed.get(runId) ?? start(runId, afterSeq);
      entry.listeners.add(listener);
      await entry.subscribed;
      return {
        stop() {
          entry.listeners.delete(listener);
          if (entry.listeners.size > 0 || followed.get(runId) !== entry) return;
          followed.delete(runId);
          void entry.subscribed.then((unsubscribe) => unsubscribe());
        },
        readByFollower(events) {
          entry.hand(events);
        },
      };
    },
  };
}
