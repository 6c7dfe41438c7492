import "server-only";
import { getLogger } from "@/lib/server/ops/logger";
import type { RunService } from "@/lib/server/runs/run-service";
import type { SseChannel } from "@/lib/server/streams/sse-channel";
import { diffInboxPages } from "@/lib/wire/inbox-changes";
import type { InboxPage } from "@/lib/wire/inbox-item";
import type { InboxFilter } from "@/lib/wire/list-filters";
import { createSerialTask } from "./serial-task";

/** The most often the inbox is re-read while runs are busy: a burst of events costs one read. */
const INBOX_THROTTLE_MS = 100;

/**
 * Streams the inbox's first page (of the runs that match the filter): the whole page (and the total) on connect
 * as `inbox`, then, after any run's events change it, only what changed
 * (`inbox-changes`: rows gone, rows new or different, the order, the total);
 * later pages are read through `GET /api/inbox`. A reconnect needs no resume
 * point: its first message is the whole page again. Reads are throttled, not
 * debounced, so busy runs cannot postpone an update forever.
 */
export async function pipeInbox(
  service: RunService,
  channel: SseChannel,
  filter: InboxFilter = {},
): Promise<() => void> {
  let lastSent: InboxPage | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = createSerialTask(
    async () => {
      const page = await service.listInbox({ filter });
      if (channel.isClosed) return;
      if (lastSent === null) {
        channel.send({ event: "inbox", data: JSON.stringify(page) });
      } else {
        const changes = diffInboxPages(lastSent, page);
        if (!changes) return;
        channel.send({ event: "inbox-changes", data: JSON.stringify(changes) });
      }
      lastSent = page;
    },
    (error) => {
      getLogger().error({ err: error }, "the inbox stream could not read from the database");
      channel.close();
    },
  );
  const unsubscribe = await service.subscribeToEvents("*", () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      send();
    }, INBOX_THROTTLE_MS);
  });
  send();
  return () => {
    clearTimeout(timer);
    unsubscribe();
  };
}
