import "server-only";
import type { SseChannel } from "@/lib/http/sse";
import { registerStream } from "./open-streams";
import type { RunService } from "./run-service";

/**
 * Streams a run's events after `afterSeq`: the stored ones first, then each
 * new one as it is committed, every one with `id:` = its seq, none skipped or
 * repeated. It subscribes before replaying, and on every notification reads
 * the events after the last one sent, so an event committed during the replay
 * is neither lost nor sent twice. After `run_finished` it sends `end` and
 * closes, since nothing can follow. Returns the clean-up.
 */
export async function pipeRunEvents(
  service: RunService,
  runId: string,
  afterSeq: number,
  channel: SseChannel,
): Promise<() => void> {
  let lastSent = afterSeq;
  const pump = serialize(async () => {
    const events = await service.readEvents(runId, lastSent);
    for (const event of events) {
      if (channel.isClosed) return;
      channel.send({ id: String(event.seq), data: JSON.stringify(event) });
      lastSent = event.seq;
      if (event.type === "run_finished") {
        channel.send({ event: "end", data: JSON.stringify({ lastSeq: event.seq }) });
        channel.close();
        return;
      }
    }
  }, channel);
  const unsubscribe = await service.subscribeToEvents(runId, pump);
  const unregister = registerStream(channel);
  pump();
  return () => {
    unregister();
    unsubscribe();
  };
}

/** How long the inbox waits for a burst of events to end before it re-reads the list. */
const INBOX_SETTLE_MS = 100;

/**
 * Streams the inbox as whole snapshots: one on connect, then one after any
 * run's events change it. A snapshot per message means a reconnect needs no
 * resume point: the first message after it is the whole truth.
 */
export async function pipeInbox(service: RunService, channel: SseChannel): Promise<() => void> {
  let lastSent = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = serialize(async () => {
    const data = JSON.stringify({ items: await service.listInbox() });
    if (data === lastSent || channel.isClosed) return;
    lastSent = data;
    channel.send({ event: "inbox", data });
  }, channel);
  const unsubscribe = await service.subscribeToEvents("*", () => {
    clearTimeout(timer);
    timer = setTimeout(send, INBOX_SETTLE_MS);
  });
  send();
  return () => {
    clearTimeout(timer);
    unsubscribe();
  };
}

/**
 * Runs `task` one at a time: a call while it runs schedules exactly one more
 * run after it. A failure closes the stream (the browser reconnects and
 * resumes) instead of leaving it silently stuck.
 */
function serialize(task: () => Promise<void>, channel: SseChannel): () => void {
  let running = false;
  let again = false;
  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await task();
      } while (again && !channel.isClosed);
    } catch (error) {
      console.error("an event stream could not read from the database:", error);
      channel.close();
    } finally {
      running = false;
    }
  };
  return () => void run();
}
