import "server-only";
import type { RunService } from "@/lib/server/runs/run-service";
import type { SseChannel } from "@/lib/server/streams/sse-channel";
import type { InboxFilter } from "@/lib/wire/list-filters";
import { createInboxFeeds, type InboxFeeds } from "./inbox-feed";

// One set of feeds per run service (one per process): every inbox stream of the process shares them.
const feedsOfService = new WeakMap<RunService, InboxFeeds>();

function feedsOf(service: RunService): InboxFeeds {
  let feeds = feedsOfService.get(service);
  if (!feeds) {
    feeds = createInboxFeeds(service);
    feedsOfService.set(service, feeds);
  }
  return feeds;
}

/**
 * Streams the inbox's first page (of the runs that match the filter): the whole page (and the total) on connect
 * as `inbox`, then, after any run's events change it, only what changed
 * (`inbox-changes`: rows gone, rows new or different, the order, the total);
 * later pages are read through `GET /api/inbox`. A reconnect needs no resume
 * point: its first message is the whole page again. The reads are the
 * filter's feed's, shared by every stream of the process (`inbox-feed.ts`).
 */
export async function pipeInbox(
  service: RunService,
  channel: SseChannel,
  filter: InboxFilter = {},
): Promise<() => void> {
  return feedsOf(service).follow(filter, {
    page: (data) => {
      if (!channel.isClosed) channel.send({ event: "inbox", data });
    },
    changes: (data) => {
      if (!channel.isClosed) channel.send({ event: "inbox-changes", data });
    },
    fail: () => channel.close(),
  });
}
