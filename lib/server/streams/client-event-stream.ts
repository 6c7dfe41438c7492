import "server-only";
import { type StoredRunEvent, toWireEvent } from "@/lib/runtime";
import { isTerminalStatus } from "@/lib/runtime/run/is-terminal-status";
import { getLogger } from "@/lib/server/ops/logger";
import type { RunService } from "@/lib/server/runs/run-service";
import type { SseChannel, SseMessage } from "@/lib/server/streams/sse-channel";
import { pipeCompletionDrafts } from "./pipe-completion-drafts";
import type { FollowedRun } from "./run-event-reader";
import { createSerialTask } from "./serial-task";

// The feed hands every stream of a run the same event objects: each is encoded once, not once per open page.
const encoded = new WeakMap<StoredRunEvent, string>();

function wireText(event: StoredRunEvent): string {
  let text = encoded.get(event);
  if (text === undefined) {
    text = JSON.stringify(toWireEvent(event));
    encoded.set(event, text);
  }
  return text;
}

/** About how many bytes of history a stream reads from the database at a time. */
export const HISTORY_PAGE_BYTES = 64 * 1024;
/** The first page's length in events, before the stream knows how large this run's events are. */
const FIRST_PAGE_EVENTS = 32;
const MAX_PAGE_EVENTS = 1_000;

/**
 * Streams a run's events after `afterSeq`: the stored ones first, then each
 * new one as it is committed, every one with `id:` = its seq, none skipped or
 * repeated. The stored ones are read a page at a time (about
 * {@link HISTORY_PAGE_BYTES}), the next page only once the reader has taken
 * most of the last, so a long history never sits in memory once per reader.
 * New events come from the process's one reader of this run (the feed),
 * shared by every stream of the run; a stream that finds a gap before a batch
 * (it was still replaying) reads the gap itself. The last page a stream
 * replays goes to the feed too, which then stands at the run's latest event:
 * a decision made on the page that opened the stream is this process's next
 * write, and its events are handed on as it returns, not read back. Once the
 * run has finished and everything up to `run_finished` was sent (now, or
 * before a reconnect), it sends `end` and closes. While the run is RUNNING it
 * also says, as `event: worker`, whether the run's worker is gone (its lease
 * ran out), so the page shows the run as recovering rather than as busy, and,
 * as `event: completion`, what a streaming model has generated so far in this
 * process (pipe-completion-drafts.ts). `justRead` is the run as the caller read it a moment ago
 * (the route, to answer 404): the first worker check, and the check for a client resuming after
 * the end, use it instead of reading the run again.
 * Returns the clean-up.
 */
export async function pipeRunEvents(
  service: RunService,
  runId: string,
  afterSeq: number,
  channel: SseChannel,
  justRead?: RunRead,
): Promise<() => void> {
  let lastSent = afterSeq;
  let isFirstRead = true;
  let pageEvents = FIRST_PAGE_EVENTS;
  const end = () => {
    channel.send({ event: "end", data: JSON.stringify({ lastSeq: lastSent }) });
    channel.close();
  };
  const onError = (error: unknown) => {
    getLogger().error({ err: error }, "a run event stream could not read from the database");
    channel.close();
  };
  // Sends the events that follow the last one sent, in one write (a commit's events together); a gap
  // is caught up after them, and `run_finished` ends the stream.
  const send = (events: readonly StoredRunEvent[]) => {
    if (channel.isClosed) return;
    const messages: SseMessage[] = [];
    let isGap = false;
    let isFinished = false;
    for (const event of events) {
      if (event.seq <= lastSent) continue;
      if (event.seq !== lastSent + 1) {
        isGap = true;
        break;
      }
      messages.push({ id: String(event.seq), data: wireText(event) });
      lastSent = event.seq;
      if (event.type === "run_finished") {
        isFinished = true;
        break;
      }
    }
    channel.sendAll(messages);
    if (isFinished) end();
    else if (isGap) catchUp();
  };
  // Set once following starts; a gap found while it starts is caught up without it.
  let following: FollowedRun | undefined;
  const catchUp = createSerialTask(async () => {
    for (;;) {
      await channel.whenReady();
      if (channel.isClosed) return;
      const page: Array<StoredRunEvent | undefined> = await service.readEvents(runId, lastSent, pageEvents);
      const isLastPage = page.length < pageEvents;
      // A client resuming after the end would otherwise wait forever for nothing. The caller's read
      // will do: a run_finished the client already has was committed before it.
      if (isFirstRead && page.length === 0) {
        const run = justRead ?? (await service.getRun(runId));
        if (run && isTerminalStatus(run.status)) end();
      }
      isFirstRead = false;
      let bytes = 0;
      // The last page, once sent, goes to the feed too (it is small: the history's tail).
      const lastPage: StoredRunEvent[] = [];
      for (let index = 0; index < page.length; index += 1) {
        const event = page[index];
        // Forgotten as it is sent: a reader that stops holds what it has not taken, not the whole page.
        page[index] = undefined;
        if (!event || event.seq <= lastSent) continue;
        await channel.whenReady();
        // Live events may have been sent meanwhile.
        if (channel.isClosed) return;
        if (event.seq <= lastSent) continue;
        bytes += wireText(event).length;
        if (isLastPage) lastPage.push(event);
        send([event]);
        if (channel.isClosed) return; // ended at run_finished, or dropped
      }
      if (isLastPage) {
        following?.readByFollower(lastPage);
        return;
      }
      const averageBytes = Math.max(1, bytes / page.length);
      pageEvents = Math.min(MAX_PAGE_EVENTS, Math.max(1, Math.floor(HISTORY_PAGE_BYTES / averageBytes)));
    }
  }, onError);
  following = await service.followEvents(runId, afterSeq, send);
  catchUp();
  if (justRead) rememberCheck(service, runId, Promise.resolve(justRead));
  const stopWatching = watchWorker(service, runId, channel);
  const stopDrafts = pipeCompletionDrafts(service.completionDrafts, runId, channel);
  return () => {
    stopDrafts();
    stopWatching();
    following?.stop();
  };
}

/** How often an open stream of a running run checks that the run's worker is alive. */
const WORKER_CHECK_MS = 1_000;

type RunRead = Awaited<ReturnType<RunService["getRun"]>>;

// Every open stream of a run checks its worker each second: one read of the run answers all of
// this process's streams of it within that second.
const recentChecks = new WeakMap<RunService, Map<string, { at: number; run: Promise<RunRead> }>>();

function checkRun(service: RunService, runId: string): Promise<RunRead> {
  const recent = recentChecks.get(service)?.get(runId);
  if (recent && Date.now() - recent.at < WORKER_CHECK_MS / 2) return recent.run;
  const run = service.getRun(runId);
  rememberCheck(service, runId, run);
  return run;
}

/** Answers this process's checks of the run for the next half second with `run`. */
function rememberCheck(service: RunService, runId: string, run: Promise<RunRead>): void {
  let checks = recentChecks.get(service);
  if (!checks) {
    checks = new Map();
    recentChecks.set(service, checks);
  }
  checks.set(runId, { at: Date.now(), run });
  // Forgotten a second after it answers (or fails: a failed check is tried again next time).
  const forget = () =>
    setTimeout(() => {
      if (checks.get(runId)?.run === run) checks.delete(runId);
    }, WORKER_CHECK_MS);
  run.then(forget, forget);
}

function watchWorker(service: RunService, runId: string, channel: SseChannel): () => void {
  let lastSent: boolean | null = null;
  const check = createSerialTask(
    async () => {
      const run = await checkRun(service, runId);
      if (!run || channel.isClosed) return;
      const lost = run.leaseExpired;
      // Only a running run has a worker to lose; a run that stopped running says nothing, unless to clear "lost".
      if (lost === lastSent || (run.status !== "RUNNING" && lastSent !== true)) return;
      lastSent = lost;
      channel.send({ event: "worker", data: JSON.stringify({ lost }) });
    },
    // A failed check changes nothing: the events are what the page trusts, and the next check may work.
    () => {},
  );
  check();
  const timer = setInterval(check, WORKER_CHECK_MS);
  return () => clearInterval(timer);
}
