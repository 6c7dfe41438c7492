import "server-only";
import { canonicalJson } from "@/lib/runtime";
import { getLogger } from "@/lib/server/ops/logger";
import type { RunService } from "@/lib/server/runs/run-service";
import { diffInboxPages } from "@/lib/wire/inbox-changes";
import type { InboxPage } from "@/lib/wire/inbox-item";
import type { InboxFilter } from "@/lib/wire/list-filters";
import { createSerialTask } from "./serial-task";

/** The most often the inbox is re-read while runs are busy: a burst of events costs one read. */
const INBOX_THROTTLE_MS = 100;

/** One follower of a feed: an open inbox stream. */
export interface InboxFollower {
  /** The whole page (encoded): the follower's first message. */
  page(data: string): void;
  /** What changed since the page it was last given. */
  changes(data: string): void;
  /** The feed could not read (logged once, by the feed): the follower ends, and a browser reconnects. */
  fail(): void;
}

interface Feed {
  followers: Map<InboxFollower, { lastSent: InboxPage | null }>;
  latest: InboxPage | null;
  read(): void;
  stop(): void;
}

/**
 * The inbox's first page, read once per change for every stream of one
 * filter on this instance. Each open stream read the inbox on its own at
 * every change: a thousand streams made a thousand reads of a 100,000-row
 * inbox per burst of events, and new streams could not get their first page
 * (`npm run load:shapes -- three-postgres-deep`). A feed reads while it has
 * followers, at most every {@link INBOX_THROTTLE_MS} (throttled, not
 * debounced, so busy runs cannot postpone an update forever), and encodes
 * each page and its changes once for all of them.
 */
export function createInboxFeeds(service: Pick<RunService, "listInbox" | "subscribeToEvents">) {
  const feeds = new Map<string, Feed>();

  async function openFeed(key: string, filter: InboxFilter): Promise<Feed> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const feed: Feed = {
      followers: new Map(),
      latest: null,
      read: createSerialTask(
        async () => {
          const page = await service.listInbox({ filter });
          publish(feed, page);
        },
        (error) => {
          getLogger().error({ err: error }, "the inbox feed could not read from the database");
          // The feed ends with its followers: the next stream opens a fresh one, which reads again.
          if (feeds.get(key) === feed) feeds.delete(key);
          feed.stop();
          for (const follower of [...feed.followers.keys()]) follower.fail();
        },
      ),
      stop: () => {
        clearTimeout(timer);
        unsubscribe();
      },
    };
    const unsubscribe = await service.subscribeToEvents("*", () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        feed.read();
      }, INBOX_THROTTLE_MS);
    });
    feeds.set(key, feed);
    // Its first page: streams that join before it comes are sent it whole when it does.
    feed.read();
    return feed;
  }

  const opening = new Map<string, Promise<Feed>>();

  /** Follows the page of `filter`; the returned function stops following. */
  async function follow(filter: InboxFilter, follower: InboxFollower): Promise<() => void> {
    const key = canonicalJson(filter);
    let feed = feeds.get(key);
    if (!feed) {
      let pending = opening.get(key);
      if (!pending) {
        pending = openFeed(key, filter).finally(() => opening.delete(key));
        opening.set(key, pending);
      }
      feed = await pending;
    }
    const followed = feed;
    if (feeds.get(key) !== followed) {
      // Its first read failed while this stream was joining: it ends like the streams that had joined.
      follower.fail();
      return () => {};
    }
    // A feed that is following the runs holds the current page: a new stream starts from it.
    // Before its first page, the stream is sent that page whole when it comes.
    const { latest } = followed;
    if (latest) follower.page(JSON.stringify(latest));
    followed.followers.set(follower, { lastSent: latest });
    return () => {
      followed.followers.delete(follower);
      if (followed.followers.size === 0 && feeds.get(key) === followed) {
        feeds.delete(key);
        followed.stop();
      }
    };
  }

  function publish(feed: Feed, page: InboxPage) {
    const previous = feed.latest;
    feed.latest = page;
    let whole: string | undefined;
    let shared: string | null | undefined;
    for (const [follower, state] of feed.followers) {
      if (state.lastSent === null) {
        whole ??= JSON.stringify(page);
        follower.page(whole);
      } else {
        let data: string | null;
        if (state.lastSent === previous) {
          if (shared === undefined) {
            const changes = previous ? diffInboxPages(previous, page) : null;
            shared = changes ? JSON.stringify(changes) : null;
          }
          data = shared;
        } else {
          const changes = diffInboxPages(state.lastSent, page);
          data = changes ? JSON.stringify(changes) : null;
        }
        if (data !== null) follower.changes(data);
      }
      // A page that shows the same as the last one sent stands in for it: the next changes are shared.
      state.lastSent = page;
    }
  }

  return { follow };
}

export type InboxFeeds = ReturnType<typeof createInboxFeeds>;
