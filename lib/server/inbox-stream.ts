import "server-only";
import type { SseChannel } from "@/lib/http/sse";
import type { RunService } from "./run-service";
import { createSerialTask } from "./serial-task";

/** The most often the inbox is re-read while runs are busy: a burst of events costs one read. */
const INBOX_THROTTLE_MS = 100;

/**
 * Streams the inbox's first page (and the total) as snapshots: one on
 * connect, then one after any run's events change it; later pages are read
 * through `GET /api/inbox`. A snapshot per message means a reconnect needs no
 * resume point: the first message after it is the whole truth. Reads are
 * throttled, not debounced, so busy runs cannot postpone an update forever.
 */
export async function pipeInbox(service: RunService, channel: SseChannel): Promise<() => void> {
  let lastSent = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = createSerialTask(
    async () => {
      const data = JSON.stringify(await service.listInbox());
      if (data === lastSent || channel.isClosed) return;
      lastSent = data;
      channel.send({ event: "inbox", data });
    },
    (error) => {
      console.error("the inbox stream could not read from the database:", error);
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
