import { queryOptions } from "@tanstack/react-query";
import type { RunView } from "@/lib/run-view/run-view";
import { fetchJson } from "./fetch-json";
import type { InboxItem } from "./inbox-item";

/** Query keys of server state; the event streams write into these same entries. */
export const queryKeys = {
  runView: (runId: string) => ["runs", runId, "view"] as const,
  inbox: () => ["inbox"] as const,
};

/** The live run page's data. Fresh until the stream says otherwise, so it is never refetched on a timer. */
export function runViewQueryOptions(runId: string) {
  return queryOptions({
    queryKey: queryKeys.runView(runId),
    queryFn: ({ signal }) => fetchJson<RunView>(`/api/runs/${runId}/view`, signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function inboxQueryOptions() {
  return queryOptions({
    queryKey: queryKeys.inbox(),
    queryFn: async ({ signal }) => (await fetchJson<{ items: InboxItem[] }>("/api/inbox", signal)).items,
    staleTime: Number.POSITIVE_INFINITY,
  });
}
