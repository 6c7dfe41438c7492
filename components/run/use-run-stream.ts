"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { queryKeys } from "@/lib/queries/run-queries";
import { applyRunEvent, classifyEvent, type RunEventRecord, type RunView } from "@/lib/run-view/run-view";

export type StreamState = "connecting" | "live" | "reconnecting" | "ended";

/** The longest pause between attempts to reopen a stream the server refused. */
const MAX_RETRY_MS = 15_000;

/**
 * Keeps the cached run view current from the run's event stream, starting
 * after the cached view's `lastSeq`. A dropped connection is resumed by the
 * browser with `Last-Event-ID`. Events already folded are ignored. A gap
 * (which the server never sends, but a cache replaced under us could
 * produce) or a stream the browser gave up on (the server answered with an
 * error) is reopened from the cached `lastSeq`, so nothing is folded across
 * a hole and updates never silently stop.
 */
export function useRunStream(runId: string, isFinished: boolean): StreamState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<StreamState>(isFinished ? "ended" : "connecting");

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
        if (current.readyState !== EventSource.CLOSED) {
          setState("reconnecting");
          return;
        }
        // The browser gave up (the server answered with an error): retry ourselves, backing off.
        failures += 1;
        reopen(Math.min(MAX_RETRY_MS, 500 * 2 ** failures));
      };
      current.onmessage = (message) => {
        const event = JSON.parse(message.data) as RunEventRecord;
        const view = queryClient.getQueryData<RunView>(key);
        if (!view) return;
        const place = classifyEvent(view, event.seq);
        if (place === "next") queryClient.setQueryData<RunView>(key, applyRunEvent(view, event));
        else if (place === "gap") reopen(0);
      };
      current.addEventListener("end", () => {
        current.close();
        setState("ended");
      });
    };

    const reopen = (delayMs: number) => {
      source?.close();
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

  return state;
}
