"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { queryKeys } from "@/lib/queries/run-queries";
import { applyRunEvent, classifyEvent, type RunEventRecord, type RunView } from "@/lib/run-view/run-view";

export type StreamState = "connecting" | "live" | "reconnecting" | "ended";

const TERMINAL = new Set(["COMPLETED", "FAILED", "CANCELLED"]);

/**
 * Keeps the cached run view current from the run's event stream. It starts
 * after the cached view's `lastSeq`; when the connection drops, the browser
 * reconnects with `Last-Event-ID` and the server resumes after it. Events
 * already folded are ignored, and a gap (which the server never sends, but a
 * cache replaced under us could produce) refetches the whole view instead of
 * folding across it.
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
    const startAfter = queryClient.getQueryData<RunView>(key)?.lastSeq ?? 0;
    const source = new EventSource(`/api/runs/${runId}/events?after=${startAfter}`);
    let isRefetching = false;
    source.onopen = () => setState("live");
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? "ended" : "reconnecting");
    source.onmessage = (message) => {
      const event = JSON.parse(message.data) as RunEventRecord;
      const view = queryClient.getQueryData<RunView>(key);
      if (!view) return;
      const place = classifyEvent(view, event.seq);
      if (place === "next") {
        queryClient.setQueryData<RunView>(key, applyRunEvent(view, event));
      } else if (place === "gap" && !isRefetching) {
        isRefetching = true;
        void queryClient.invalidateQueries({ queryKey: key }).finally(() => {
          isRefetching = false;
        });
      }
    };
    source.addEventListener("end", () => {
      source.close();
      setState("ended");
    });
    return () => source.close();
  }, [runId, isFinished, queryClient]);

  return state;
}

export function isTerminalStatus(status: string): boolean {
  return TERMINAL.has(status);
}
