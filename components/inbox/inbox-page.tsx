"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { InboxItem } from "@/lib/queries/inbox-item";
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
export function InboxPage({ initialItems, renderedAt }: { initialItems: InboxItem[]; renderedAt: number }) {
  const { data: items } = useQuery({ ...inboxQueryOptions(), initialData: initialItems });
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
    </div>
  );
}
