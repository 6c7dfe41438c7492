import "server-only";
import { type CompletionDrafts, type DraftSent, diffCompletionDraft } from "@/lib/runtime";
import { createSerialTask } from "./serial-task";
import type { SseChannel } from "./sse-channel";

/** The event a run's stream carries a streaming model's output in (no `id:`: it is not one of the run's events). */
export const COMPLETION_DRAFT_EVENT = "completion";

/** The most often one stream is sent a run's draft: deltas in between are coalesced into one message. */
export const DRAFT_INTERVAL_MS = 100;

/**
 * Sends one stream what a streaming model generates for the run, beside its
 * events (docs/transcript-and-fork.md#streamed-output): first the draft as it
 * is now, then what was generated since, at most every
 * {@link DRAFT_INTERVAL_MS} and only when the reader has taken what it was
 * sent (latest wins: a slow reader gets fewer, larger messages, never a
 * backlog). A stream that reconnects starts from the whole draft again.
 * Returns the clean-up.
 */
export function pipeCompletionDrafts(
  drafts: CompletionDrafts,
  runId: string,
  channel: SseChannel,
): () => void {
  let sent: DraftSent | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = createSerialTask(
    async () => {
      await channel.whenReady();
      if (channel.isClosed) return;
      const draft = drafts.current(runId);
      // Gone: the step's event is on its way; the next draft is sent whole.
      if (!draft) {
        sent = null;
        return;
      }
      const next = diffCompletionDraft(sent, draft);
      if (!next) return;
      sent = next.sent;
      channel.send({ event: COMPLETION_DRAFT_EVENT, data: JSON.stringify(next.message) });
    },
    () => {},
  );
  const schedule = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      flush();
    }, DRAFT_INTERVAL_MS);
  };
  const unfollow = drafts.follow(runId, schedule);
  flush();
  return () => {
    clearTimeout(timer);
    unfollow();
  };
}
