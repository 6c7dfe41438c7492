"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { fetchJson } from "@/lib/queries/fetch-json";
import { inboxQueryOptions } from "@/lib/queries/query-options";
import {
  type InboxFilterParams,
  type InboxItem,
  type InboxPage as InboxPageData,
  inboxSearchParams,
} from "@/lib/wire/inbox-item";
import { useNow } from "../ui/use-now";
import { type HeldRow, holdDecidedRows } from "./hold-decided-rows";
import { InboxFilters } from "./inbox-filters";
import { InboxRow } from "./inbox-row";
import { KeyboardHelp } from "./keyboard-help";
import { useInboxStream } from "./use-inbox-stream";

/** How long a decided row stays where it was, showing its outcome, before it moves or leaves. */
const HOLD_DECIDED_MS = 2500;
/** The longest a row is held while its decision is on its way (the answer normally takes milliseconds). */
const SENDING_HOLD_MS = 15_000;
/** How long a selected run may be gone from the list (after its hold) before the selection moves on. */
const RESELECT_AFTER_MS = 500;

/**
 * Every run waiting for a decision, kept live by the inbox stream, narrowed
 * by the filters (kept in the address). Keyboard: `j`/`k` move, `a`
 * approves, `d` denies (with a reason), `?` lists the keys.
 */
export function InboxPage({
  initialPage,
  initialFilter,
  renderedAt,
}: {
  initialPage: InboxPageData;
  initialFilter: InboxFilterParams;
  renderedAt: number;
}) {
  const [filter, setFilter] = useState(initialFilter);
  const isInitialFilter =
    inboxSearchParams(filter).toString() === inboxSearchParams(initialFilter).toString();
  const { data: firstPage, isFetching } = useQuery({
    ...inboxQueryOptions(filter),
    initialData: isInitialFilter ? initialPage : undefined,
    placeholderData: (previous) => previous,
  });
  const shownPage = firstPage ?? initialPage;
  const more = useMorePages(shownPage, filter);
  const isLive = useInboxStream(filter);
  const [isHelpOpen, setHelpOpen] = useState(false);
  const isFiltered = inboxSearchParams({ ...filter, order: undefined }).toString() !== "";
  const now = useNow(1000, renderedAt);
  // Rows decided a moment ago stay where they were, showing what the decision did.
  const [held, setHeld] = useState<HeldRow[]>([]);
  const shownRows = holdDecidedRows(more.items, held, now);
  const items = shownRows.map((row) => row.item);
  // Nothing is selected until the person moves: the first `j` lands on the newest wait.
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const rows = useRef(new Map<string, HTMLLIElement>());
  const lastIndex = useRef(0);

  const selectedIndex = items.findIndex((item) => item.runId === selectedId);
  if (selectedIndex >= 0) lastIndex.current = selectedIndex;

  // A decided row is held in place for a moment, and a run with another gate comes back within it:
  // the selection stays on it rather than jumping to whichever run took its place (the next key would then
  // decide a run the person never looked at). Only if it stays gone does its neighbour take over.
  useEffect(() => {
    if (selectedId === null || selectedIndex >= 0 || items.length === 0) return;
    const timer = setTimeout(() => {
      const replacement = items[Math.min(lastIndex.current, items.length - 1)];
      if (!replacement) return;
      const wasFocusLost = document.activeElement === document.body;
      setSelectedId(replacement.runId);
      if (wasFocusLost) rows.current.get(replacement.runId)?.focus();
    }, RESELECT_AFTER_MS);
    return () => clearTimeout(timer);
  }, [items, selectedId, selectedIndex]);

  // The selected run is back (waiting on its next gate): focus follows it to its new place.
  useEffect(() => {
    if (selectedId === null || selectedIndex < 0 || document.activeElement !== document.body) return;
    rows.current.get(selectedId)?.focus();
  }, [selectedId, selectedIndex]);

  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      const target = event.target as HTMLElement;
      if (target.closest("input, textarea, select, [contenteditable], dialog")) return;
      if (event.key === "?") {
        event.preventDefault();
        setHelpOpen(true);
        return;
      }
      if (event.key !== "j" && event.key !== "k") return;
      event.preventDefault();
      const from = selectedIndex >= 0 ? selectedIndex : -1;
      const to = Math.max(0, Math.min(items.length - 1, from + (event.key === "j" ? 1 : -1)));
      const next = items[to];
      if (!next) return;
      setSelectedId(next.runId);
      rows.current.get(next.runId)?.focus();
    }
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [items, selectedIndex]);

  return (
    <div className="inbox">
      <header className="inbox-header">
        <h1>Inbox</h1>
        <span
          className="stream-state"
          role="status"
          aria-label="Live updates"
          data-state={isLive ? "live" : "reconnecting"}
        >
          {isLive ? "Live" : "Connecting…"}
        </span>
        <p className="muted keyboard-help">
          <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>a</kbd> approve · <kbd>d</kbd> deny ·{" "}
          <button type="button" className="link-button" onClick={() => setHelpOpen(true)}>
            <kbd>?</kbd> all keys
          </button>
        </p>
      </header>
      <KeyboardHelp isOpen={isHelpOpen} onClose={() => setHelpOpen(false)} />
      <InboxFilters
        filter={filter}
        onChange={(next) => {
          setFilter(next);
          const query = inboxSearchParams(next).toString();
          // The address keeps the filter: a reload or a shared link shows the same runs.
          window.history.replaceState(null, "", query ? `?${query}` : window.location.pathname);
        }}
      />
      <p className="muted" aria-live="polite" aria-busy={isFetching}>
        {shownPage.total > 0
          ? `Showing ${more.items.length} of ${shownPage.total} waiting run${shownPage.total === 1 ? "" : "s"}${
              isFiltered ? " that match" : ""
            }, ${filter.order === "oldest" ? "longest wait" : "newest"} first.`
          : ""}
      </p>
      {items.length === 0 ? (
        <p className="panel empty">
          {isFiltered
            ? "No waiting run matches these filters."
            : "No run is waiting for a decision. New waits appear here as they happen."}
        </p>
      ) : (
        <ul className="inbox-list" aria-label="Waiting runs">
          {shownRows.map(({ item, outcome, isSettled }, index) => (
            <InboxRow
              key={item.runId}
              outcome={outcome}
              isSettled={isSettled}
              onDeciding={(decided) =>
                setHeld((current) => [
                  ...current.filter((row) => row.item.runId !== item.runId && row.until > Date.now()),
                  { item, index, decided, confirmed: false, until: Date.now() + SENDING_HOLD_MS },
                ])
              }
              onDecided={() =>
                setHeld((current) =>
                  current.map((row) =>
                    row.item.runId === item.runId
                      ? { ...row, confirmed: true, until: Date.now() + HOLD_DECIDED_MS }
                      : row,
                  ),
                )
              }
              onRefused={() => setHeld((current) => current.filter((row) => row.item.runId !== item.runId))}
              registerRow={(element) => {
                if (element) rows.current.set(item.runId, element);
                else rows.current.delete(item.runId);
              }}
              item={item}
              now={now}
              isSelected={item.runId === selectedId}
              isTabStop={item.runId === selectedId || (selectedIndex < 0 && item === items[0])}
              onSelect={() => setSelectedId(item.runId)}
            />
          ))}
        </ul>
      )}
      {more.nextCursor && (
        <p>
          <button type="button" onClick={more.load} disabled={more.isLoading}>
            {more.isLoading ? "Loading…" : "Show more"}
          </button>
        </p>
      )}
      {more.error && (
        <p className="alert" role="alert">
          <strong>Could not load more runs.</strong> {more.error} Try again.
        </p>
      )}
    </div>
  );
}

/**
 * The first page stays live (the stream replaces it); further pages are read
 * on request, after the cursor of the last one shown. A run the live first
 * page shows is not shown twice.
 */
function useMorePages(firstPage: InboxPageData, filter: InboxFilterParams) {
  const query = inboxSearchParams(filter).toString();
  const [pages, setPages] = useState<{
    query: string;
    items: InboxItem[];
    nextCursor: string | null;
  } | null>(null);
  // Pages read under another filter are not this list's.
  const loaded = pages?.query === query ? pages : null;
  const [isLoading, setIsLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const shown = new Set(firstPage.items.map((item) => item.runId));
  const items = [...firstPage.items, ...(loaded?.items ?? []).filter((item) => !shown.has(item.runId))];
  const nextCursor = loaded ? loaded.nextCursor : firstPage.nextCursor;
  async function load() {
    if (!nextCursor) return;
    setIsLoading(true);
    setError(null);
    try {
      const params = inboxSearchParams(filter);
      params.set("after", nextCursor);
      const page = await fetchJson<InboxPageData>(`/api/inbox?${params}`);
      setPages((previous) => ({
        query,
        items: [...(previous?.query === query ? previous.items : []), ...page.items],
        nextCursor: page.nextCursor,
      }));
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setIsLoading(false);
    }
  }
  return { items, nextCursor, load, isLoading, error };
}
