"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { InboxItem } from "@/lib/queries/inbox-item";
import { queryKeys } from "@/lib/queries/run-queries";

/** Replaces the cached inbox with each snapshot the server streams; returns whether the stream is up. */
export function useInboxStream(): boolean {
  const queryClient = useQueryClient();
  const [isLive, setIsLive] = useState(false);
  useEffect(() => {
    const source = new EventSource("/api/inbox/events");
    source.onopen = () => setIsLive(true);
    source.onerror = () => setIsLive(false);
    source.addEventListener("inbox", (message) => {
      const { items } = JSON.parse((message as MessageEvent<string>).data) as { items: InboxItem[] };
      queryClient.setQueryData(queryKeys.inbox(), items);
    });
    return () => source.close();
  }, [queryClient]);
  return isLive;
}
