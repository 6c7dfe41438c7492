"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { queryKeys } from "@/lib/queries/query-options";
import { applyInboxChanges, type InboxChanges } from "@/lib/wire/inbox-changes";
import { type InboxFilterParams, type InboxPage, inboxSearchParams } from "@/lib/wire/inbox-item";

const MAX_RETRY_MS = 15_000;

/**
 * Keeps the cached first page of the inbox (as filtered) as the server streams it (the
 * whole page on connect, then its changes); returns
 * whether the stream is up. A stream the browser gives up on (the server
 * answered with an error) is reopened with backoff; every snapshot is whole,
 * so nothing needs resuming.
 */
export function useInboxStream(filter: InboxFilterParams): boolean {
  const queryClient = useQueryClient();
  const [isLive, setIsLive] = useState(false);
  const query = inboxSearchParams(filter).toString();
  useEffect(() => {
    const key = queryKeys.inbox(query);
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const open = () => {
      const current = new EventSource(`/api/inbox/events${query ? `?${query}` : ""}`);
      source = current;
      current.onopen = () => {
        failures = 0;
        setIsLive(true);
      };
      current.onerror = () => {
        setIsLive(false);
        if (current.readyState !== EventSource.CLOSED) return;
        failures += 1;
        retryTimer = setTimeout(open, Math.min(MAX_RETRY_MS, 500 * 2 ** failures));
      };
      current.addEventListener("inbox", (message) => {
        const page = JSON.parse((message as MessageEvent<string>).data) as InboxPage;
        queryClient.setQueryData(key, page);
      });
      current.addEventListener("inbox-changes", (message) => {
        const changes = JSON.parse((message as MessageEvent<string>).data) as InboxChanges;
        // Changes follow this stream's own first page, so the cache holds what they apply to.
        queryClient.setQueryData<InboxPage>(key, (page) => (page ? applyInboxChanges(page, changes) : page));
      });
    };
    open();
    return () => {
      clearTimeout(retryTimer);
      source?.close();
    };
  }, [queryClient, query]);
  return isLive;
}
