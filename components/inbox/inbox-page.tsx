"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { fetchJson } from "@/lib/queries/fetch-json";
import type { InboxItem, InboxPage as InboxPageData } from "@/lib/queries/inbox-item";
import { inboxQueryOptions } from "@/lib/queries/run-queries";
import { useNow } from "../ui/use-now";
import { InboxRow } from "./inbox-row";
import { useInboxStream } from "./use-inbox-stream";

/** How long a decided run may be gone from the list before the selection moves on. */
const RESELECT_AFTER_MS = 2000;

/**
 * Every run waiting for a decision, newest first, kept live by the inbox
 * stream. Keyboard: `j`/`k` move, `a` approves, `d` denies (with a reason).
 */
export function InboxPage({ initialPage, renderedAt }: { initialPage: InboxPageData; renderedAt: number }) {
  const { data: firstPage } = useQuery({ ...inboxQueryOptions(), initialData: initialPage });
  const more = useMorePages(firstPage);
  const items = more.items;
  const isLive = useInboxStream();
  const now = useNow(1000, renderedAt);
  // Nothing is selected until the person moves: the first `j` lands on the newest wait.
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const rows = useRef(new Map<string, HTMLLIElement>());
  const lastIndex = useRef(0);

  const selectedIndex = items.findIndex((item) => item.runId === selectedId);
  if (selectedIndex >= 0) lastIndex.current = selectedIndex;

  // A decided row leaves, but a run with another gate comes back within moments: the selection
  // waits for it rather than jumping to whichever run took its place (the next key would then
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
      if (target.closest("input, textarea, select, [contenteditable]")) return;
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
          <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>a</kbd> approve · <kbd>d</kbd> deny
        </p>
      </header>
      {firstPage.total > 0 && (
        <p className="muted" aria-live="polite">
          Showing {items.length} of {firstPage.total} waiting run{firstPage.total === 1 ? "" : "s"}, newest
          first.
        </p>
      )}
      {items.length === 0 ? (
        <p className="panel empty">No run is waiting for a decision. New waits appear here as they happen.</p>
      ) : (
        <ul className="inbox-list" aria-label="Waiting runs">
          {items.map((item) => (
            <InboxRow
              key={item.runId}
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
function useMorePages(firstPage: InboxPageData) {
  const [pages, setPages] = useState<{ items: InboxItem[]; nextCursor: string | null } | null>(null);
  const [isLoading, setIsLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const shown = new Set(firstPage.items.map((item) => item.runId));
  const items = [...firstPage.items, ...(pages?.items ?? []).filter((item) => !shown.has(item.runId))];
  const nextCursor = pages ? pages.nextCursor : firstPage.nextCursor;
  async function load() {
    if (!nextCursor) return;
    setIsLoading(true);
    setError(null);
    try {
      const page = await fetchJson<InboxPageData>(`/api/inbox?after=${encodeURIComponent(nextCursor)}`);
      setPages((previous) => ({
        items: [...(previous?.items ?? []), ...page.items],
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
