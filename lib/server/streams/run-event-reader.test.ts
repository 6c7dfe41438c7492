import { describe, expect, it } from "vitest";
import type { StoredRunEvent } from "@/lib/runtime";
import type { RunEventListener } from "./listen-fan-out";
import { createRunEventFeed, MAX_FEED_BATCH } from "./run-event-reader";

const event = (seq: number): StoredRunEvent => ({
  seq,
  at: "2026-11-30T00:00:00.000Z",
  type: "call_started",
  payload: { stepIndex: 0, batchIndex: seq },
});

/**
 * A hub whose notifications the test sends, and a log of events the test commits. With
 * `heldReads`, each read answers (with the log as it is then) only when the test lets it go.
 */
function harness({ heldReads = false } = {}) {
  const listeners = new Set<RunEventListener>();
  const log: StoredRunEvent[] = [];
  const held: Array<() => void> = [];
  let reads = 0;
  const feed = createRunEventFeed(
    {
      subscribe: async (_runId, listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    async (_runId, afterSeq, limit) => {
      reads += 1;
      if (heldReads) await new Promise<void>((resolve) => held.push(resolve));
      return log.filter((entry) => entry.seq > afterSeq).slice(0, limit);
    },
    (error) => {
      throw error;
    },
  );
  return {
    feed,
    commit(count: number) {
      for (let index = 0; index < count; index += 1) log.push(event(log.length + 1));
      for (const listener of listeners) listener("run", log.length);
    },
    /** A write of this process: the hub hands its events on with the notification. */
    commitHere(count: number) {
      const written = Array.from({ length: count }, () => {
        log.push(event(log.length + 1));
        return log[log.length - 1] as StoredRunEvent;
      });
      for (const listener of listeners) listener("run", log.length, () => written);
    },
    /** Lets the oldest held read answer. */
    release: () => held.shift()?.(),
    /** Events stored before anyone followed (nobody is told). */
    store(count: number) {
      for (let index = 0; index < count; index += 1) log.push(event(log.length + 1));
    },
    reads: () => reads,
    hubListeners: () => listeners.size,
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the run event feed", () => {
  it("reads a run's new events once per write, however many streams follow it, and hands each stream all of them", async () => {
    const { feed, commit, reads, hubListeners } = harness();
    const received = Array.from({ length: 100 }, () => [] as number[]);
    const unfollow = await Promise.all(
      received.map((seqs) =>
        feed.follow("run", 0, (events) => seqs.push(...events.map((entry) => entry.seq))),
      ),
    );
    expect(hubListeners()).toBe(1);
    for (let write = 0; write < 5; write += 1) {
      commit(3);
      await settle();
    }
    expect(reads()).toBe(5);
    for (const seqs of received) expect(seqs).toEqual(Array.from({ length: 15 }, (_, index) => index + 1));
    for (const following of unfollow) following.stop();
    await settle();
    expect(hubListeners()).toBe(0);
  });

  it("coalesces a burst of notifications into at most one more read", async () => {
    const { feed, commit, reads } = harness();
    const seen: number[] = [];
    await feed.follow("run", 0, (events) => seen.push(...events.map((entry) => entry.seq)));
    commit(1);
    commit(1);
    commit(1);
    await settle();
    await settle();
    expect(reads()).toBeLessThanOrEqual(2);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("reads only what is new when a follower that starts at 0 joins a long run, never the history", async () => {
    const { feed, commit, store } = harness();
    store(10 * MAX_FEED_BATCH);
    const batches: number[][] = [];
    await feed.follow("run", 0, (events) => batches.push(events.map((entry) => entry.seq)));
    commit(2);
    await settle();
    await settle();
    const handedOut = batches.flat();
    expect(handedOut.length).toBeLessThanOrEqual(MAX_FEED_BATCH);
    expect(handedOut.slice(-2)).toEqual([10 * MAX_FEED_BATCH + 1, 10 * MAX_FEED_BATCH + 2]);
  });

  it("hands on the events of this process's own writes without reading them", async () => {
    const { feed, commitHere, reads } = harness();
    const first: number[] = [];
    const second: number[] = [];
    await feed.follow("run", 0, (events) => first.push(...events.map((entry) => entry.seq)));
    await feed.follow("run", 0, (events) => second.push(...events.map((entry) => entry.seq)));
    commitHere(2);
    commitHere(1);
    // Handed on as the writes return, before anything could have been read.
    expect(first).toEqual([1, 2, 3]);
    expect(second).toEqual([1, 2, 3]);
    await settle();
    expect(reads()).toBe(0);
  });

  it("reads instead when this process's write does not follow what was handed out, and keeps the order", async () => {
    const { feed, commitHere, store, reads } = harness();
    const seen: number[] = [];
    await feed.follow("run", 0, (events) => seen.push(...events.map((entry) => entry.seq)));
    store(2); // committed elsewhere, its NOTIFY not here yet
    commitHere(1);
    expect(seen).toEqual([]);
    await settle();
    expect(reads()).toBe(1);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("stands after a follower's own replay, so this process's next write is handed on unread", async () => {
    // A page opened on a waiting run replays its history itself; the decision made on that page is
    // this process's next write.
    const { feed, commitHere, store, reads } = harness();
    store(3);
    const seen: number[] = [];
    const following = await feed.follow("run", 0, (events) => seen.push(...events.map((entry) => entry.seq)));
    following.readByFollower([event(1), event(2), event(3)]);
    commitHere(4);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    await settle();
    expect(reads()).toBe(0);
  });

  it("hands another follower the events a follower read itself, so none waits on a notification the feed skips", async () => {
    const { feed, commit, store, reads } = harness();
    const behind: number[] = [];
    await feed.follow("run", 0, (events) => behind.push(...events.map((entry) => entry.seq)));
    store(2); // committed elsewhere, its NOTIFY still on its way
    const replaying = await feed.follow("run", 0, () => {});
    replaying.readByFollower([event(1), event(2)]);
    expect(behind).toEqual([1, 2]);
    commit(0); // the NOTIFY of seq 2 arrives: nothing left to read
    await settle();
    expect(reads()).toBe(0);
  });

  it("hands out no event twice when this process's write returns while a read of it is on its way", async () => {
    const { feed, commit, commitHere, release } = harness({ heldReads: true });
    const seen: number[] = [];
    await feed.follow("run", 0, (events) => seen.push(...events.map((entry) => entry.seq)));
    commit(1); // another instance's write: a read starts
    commit(1); // and another: one more read after it
    release();
    await settle();
    expect(seen).toEqual([1, 2]);
    // The second read is on its way when this process's next write returns; the read then finds it.
    commitHere(1);
    expect(seen).toEqual([1, 2, 3]);
    release();
    await settle();
    expect(seen).toEqual([1, 2, 3]);
  });
});
