import { queryOptions } from "@tanstack/react-query";
import type { RunView } from "@/lib/runtime/browser";
import { type InboxFilterParams, type InboxPage, inboxSearchParams } from "@/lib/wire/inbox-item";
import type { ListedGrant } from "@/lib/wire/listed-grant";
import { fetchJson } from "./fetch-json";

/** Query keys of server state; the event streams write into these same entries. */
export const queryKeys = {
  runView: (runId: string) => ["runs", runId, "view"] as const,
  /** The inbox's first page under a filter, keyed by the filter's query string. */
  inbox: (query = "") => ["inbox", query] as const,
  /** The live scoped grants: all of them, or one run's (docs/policies.md#grants). */
  grants: (runId?: string) => (runId ? (["grants", runId] as const) : (["grants"] as const)),
};

/**
 * The live run page's data. Fresh until the stream says otherwise, so it is
 * never refetched on a timer. A view only ever moves forward: a refetch that
 * answers with an older `lastSeq` than the stream has already folded (it was
 * read before those events were committed) is dropped, not shown.
 */
export function runViewQueryOptions(runId: string) {
  return queryOptions({
    queryKey: queryKeys.runView(runId),
    queryFn: ({ signal }) => fetchJson<RunView>(`/api/runs/${runId}/view`, signal),
    staleTime: Number.POSITIVE_INFINITY,
    structuralSharing: (previous: unknown, next: unknown) =>
      keepNewerView(previous as RunView | undefined, next as RunView),
  });
}

export function keepNewerView(previous: RunView | undefined, next: RunView): RunView {
  return previous && previous.lastSeq > next.lastSeq ? previous : next;
}

export function inboxQueryOptions(filter: InboxFilterParams = {}) {
  const query = inboxSearchParams(filter).toString();
  return queryOptions({
    queryKey: queryKeys.inbox(query),
    queryFn: ({ signal }) => fetchJson<InboxPage>(`/api/inbox${query ? `?${query}` : ""}`, signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/**
 * The live grants, or those scoped to one run. Not streamed: refetched when a decision or a
 * revocation here may have changed them, and when the window regains focus.
 */
export function grantsQueryOptions(runId?: string) {
  return queryOptions({
    queryKey: queryKeys.grants(runId),
    queryFn: ({ signal }) =>
      fetchJson<ListedGrant[]>(`/api/grants${runId ? `?runId=${encodeURIComponent(runId)}` : ""}`, signal),
  });
}
