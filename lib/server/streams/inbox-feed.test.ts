import { describe, expect, it } from "vitest";
import type { InboxChanges } from "@/lib/wire/inbox-changes";
import type { InboxItem, InboxPage } from "@/lib/wire/inbox-item";
import type { InboxFilter } from "@/lib/wire/list-filters";
import { createInboxFeeds, type InboxFollower } from "./inbox-feed";

const item = (runId: string): InboxItem => ({
  runId,
  name: runId,
  startedBy: null,
  waitingSince: "2026-12-02T00:00:00.000Z",
  stepIndex: 0,
  pending: null,
  barrierRule: null,
  unreadable: null,
});
const pageOf = (...runIds: string[]): InboxPage => ({
  items: runIds.map(item),
  total: runIds.length,
  nextCursor: null,
});

/** A run service's inbox and event hub, in memory: the inbox is what `waiting` holds; `emit` is a run event. */
function fakeService() {
  const waiting: string[] = [];
  const listeners = new Set<() => void>();
  const reads: InboxFilter[] = [];
  let failNext = false;
  let readsDone = 0;
  return {
    waiting,
    reads,
    failNextRead: () => {
      failNext = true;
    },
    listenerCount: () => listeners.size,
    emit: () => {
      for (const listener of listeners) listener();
    },
    /** Resolves once `count` reads in all have answered. */
    readsAnswered: (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => (readsDone >= count ? resolve() : setTimeout(check, 5));
        check();
      }),
    service: {
      listInbox: async (page?: { filter?: InboxFilter }) => {
        reads.push(page?.filter ?? {});
        // A read takes a moment, as a database's does: events may arrive while it runs.
        await new Promise((resolve) => setTimeout(resolve, 1));
        readsDone += 1;
        if (failNext) {
          failNext = false;
          throw new Error("database away");
        }
        const matching = waiting.filter((runId) => !page?.filter?.tool || runId.startsWith(page.filter.tool));
        return pageOf(...matching);
      },
      subscribeToEvents: async (_runId: string, listener: () => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
}

function recorder() {
  const messages: Array<{ event: "inbox"; page: InboxPage } | { event: "changes"; changes: InboxChanges }> =
    [];
  const failures: true[] = [];
  const follower: InboxFollower = {
    page: (data) => messages.push({ event: "inbox", page: JSON.parse(data) }),
    changes: (data) => messages.push({ event: "changes", changes: JSON.parse(data) }),
    fail: () => failures.push(true),
  };
  return { follower, messages, failures };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe("inbox feeds", () => {
  it("a thousand streams of one filter cost one inbox read per burst of run events, and each gets every change", async () => {
    const fake = fakeService();
    fake.waiting.push("run-a");
    const feeds = createInboxFeeds(fake.service as never);
    const streams = Array.from({ length: 1_000 }, recorder);
    const stops = await Promise.all(streams.map((stream) => feeds.follow({}, stream.follower)));
    await until(() => streams.every((stream) => stream.messages.length === 1));
    expect(fake.reads).toHaveLength(1);
    for (const stream of streams)
      expect(stream.messages[0]).toEqual({ event: "inbox", page: pageOf("run-a") });

    fake.waiting.unshift("run-b");
    for (let event = 0; event < 20; event += 1) fake.emit();
    await until(() => streams.every((stream) => stream.messages.length === 2));
    expect(fake.reads).toHaveLength(2);
    for (const stream of streams) {
      expect(stream.messages[1]).toMatchObject({
        event: "changes",
        changes: { removed: [], order: ["run-b", "run-a"], total: 2 },
      });
    }
    for (const stop of stops) stop();
    expect(fake.listenerCount()).toBe(0);
  });

  it("a stream that joins a followed feed starts from its current page, with no read of its own", async () => {
    const fake = fakeService();
    fake.waiting.push("run-a");
    const feeds = createInboxFeeds(fake.service as never);
    const first = recorder();
    const stopFirst = await feeds.follow({}, first.follower);
    await until(() => first.messages.length === 1);
    const second = recorder();
    const stopSecond = await feeds.follow({}, second.follower);
    expect(second.messages).toEqual([{ event: "inbox", page: pageOf("run-a") }]);
    expect(fake.reads).toHaveLength(1);

    // Both see the next change; a change that shows nothing new sends nothing.
    fake.waiting.splice(0, 1);
    fake.emit();
    await until(() => second.messages.length === 2);
    expect(first.messages.at(-1)).toEqual(second.messages.at(-1));
    fake.emit();
    await fake.readsAnswered(3);
    expect(first.messages).toHaveLength(2);
    stopFirst();
    stopSecond();
  });

  it("each filter has its own feed, and the last stream to leave stops it", async () => {
    const fake = fakeService();
    fake.waiting.push("deploy-1", "read-1");
    const feeds = createInboxFeeds(fake.service as never);
    const all = recorder();
    const deploys = recorder();
    const stopAll = await feeds.follow({}, all.follower);
    const stopDeploys = await feeds.follow({ tool: "deploy" }, deploys.follower);
    await until(() => all.messages.length === 1 && deploys.messages.length === 1);
    expect(deploys.messages[0]).toEqual({ event: "inbox", page: pageOf("deploy-1") });
    expect(all.messages[0]).toEqual({ event: "inbox", page: pageOf("deploy-1", "read-1") });
    expect(fake.listenerCount()).toBe(2);
    stopDeploys();
    expect(fake.listenerCount()).toBe(1);
    stopAll();
    expect(fake.listenerCount()).toBe(0);

    // Followed again later, a feed reads afresh: nothing stale is kept.
    fake.waiting.splice(0, 2, "deploy-2");
    const again = recorder();
    const stopAgain = await feeds.follow({ tool: "deploy" }, again.follower);
    await until(() => again.messages.length === 1);
    expect(again.messages[0]).toEqual({ event: "inbox", page: pageOf("deploy-2") });
    stopAgain();
  });

  it("a read that fails ends every stream of the feed (browsers reconnect), and no stream is sent a half page", async () => {
    const fake = fakeService();
    fake.failNextRead();
    const feeds = createInboxFeeds(fake.service as never);
    const streams = [recorder(), recorder()];
    const stops = await Promise.all(streams.map((stream) => feeds.follow({}, stream.follower)));
    await until(() => streams.every((stream) => stream.failures.length === 1));
    for (const stream of streams) expect(stream.messages).toEqual([]);
    for (const stop of stops) stop();
  });
});
