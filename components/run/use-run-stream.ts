"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { queryKeys } from "@/lib/queries/query-options";
import {
  applyDraftMessage,
  applyRunEvent,
  classifyEvent,
  type DraftMessage,
  type DraftView,
  decodeRunEvent,
  type RunView,
  type StoredRunEvent,
} from "@/lib/runtime/browser";

export type StreamState = "connecting" | "live" | "reconnecting" | "ended";

/** The longest pause between attempts to reopen a stream. */
const MAX_RETRY_MS = 15_000;
/** The pause before the first attempt after a drop: a restart or a proxy timeout usually heals at once. */
const FIRST_RETRY_MS = 250;

/**
 * Keeps the cached run view current from the run's event stream, starting
 * after the cached view's `lastSeq`. Whenever the stream ends unexpectedly
 * (the server dropped it, a proxy timed out, the server answered with an
 * error) the hook closes it and reopens it itself from the cached `lastSeq`,
 * backing off while attempts keep failing. It never relies on the browser's
 * own EventSource reconnect, whose timing and `Last-Event-ID` use differ
 * between browser versions. Events already folded are ignored, and a gap
 * (which the server never sends, but a cache replaced under us could
 * produce) also reopens from `lastSeq`, so nothing is folded across a hole
 * and updates never silently stop.
 */
export function useRunStream(
  runId: string,
  isFinished: boolean,
  initialWorkerLost = false,
): { state: StreamState; workerLost: boolean; draft: DraftView | null } {
  const queryClient = useQueryClient();
  const [state, setState] = useState<StreamState>(isFinished ? "ended" : "connecting");
  // The server says when the run's worker is gone (its lease ran out); any new event means one drives it again.
  const [workerLost, setWorkerLost] = useState(initialWorkerLost);
  // What a streaming model has generated of the next step so far (docs/transcript-and-fork.md#streamed-output).
  const [draft, setDraft] = useState<DraftView | null>(null);

  useEffect(() => {
    if (isFinished) {
      setState("ended");
      return;
    }
    const key = queryKeys.runView(runId);
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let isStopped = false;

    const open = () => {
      const afterSeq = queryClient.getQueryData<RunView>(key)?.lastSeq ?? 0;
      const current = new EventSource(`/api/runs/${runId}/events?after=${afterSeq}`);
      source = current;
      current.onopen = () => {
        failures = 0;
        setState("live");
      };
      current.onerror = () => {
        if (source !== current) return; // an old stream, already replaced
        // Closing first stops the browser's own reconnect, so exactly one resume happens: ours.
        reopen(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** failures));
        failures += 1;
      };
      current.onmessage = (message) => {
        let event: StoredRunEvent;
        try {
          event = decodeRunEvent(runId, JSON.parse(message.data));
        } catch {
          // A page older than the server it talks to: keep trying, a reload brings the new page.
          reopen(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** failures));
          failures += 1;
          return;
        }
        const view = queryClient.getQueryData<RunView>(key);
        if (!view) return;
        const place = classifyEvent(view, event.seq);
        if (place === "next") {
          queryClient.setQueryData<RunView>(key, applyRunEvent(view, event));
          setWorkerLost(false);
        } else if (place === "gap") reopen(0);
      };
      current.addEventListener("worker", (message) => {
        try {
          setWorkerLost(
            (JSON.parse((message as MessageEvent<string>).data) as { lost?: unknown }).lost === true,
          );
        } catch {
          // A malformed hint changes nothing: the events are what the page trusts.
        }
      });
      current.addEventListener("completion", (message) => {
        try {
          const delta = JSON.parse((message as MessageEvent<string>).data) as DraftMessage;
          setDraft((shown) => applyDraftMessage(shown, delta));
        } catch {
          // A malformed draft changes nothing: the step's event is what the page trusts.
        }
      });
      // The server dropped this stream because the page fell too far behind (docs/streams.md): resume now.
      current.addEventListener("dropped", () => reopen(FIRST_RETRY_MS));
      current.addEventListener("end", () => {
        current.close();
        setState("ended");
      });
    };

    const reopen = (delayMs: number) => {
      source?.close();
      // The next stream starts with the whole draft, if there still is one.
      setDraft(null);
      setState("reconnecting");
      clearTimeout(retryTimer);
      retryTimer = setTimeout(() => {
        if (!isStopped) open();
      }, delayMs);
    };

    open();
    return () => {
      isStopped = true;
      clearTimeout(retryTimer);
      source?.close();
    };
  }, [runId, isFinished, queryClient]);

  return { state, workerLost: workerLost && !isFinished, draft: isFinished ? null : draft };
}
