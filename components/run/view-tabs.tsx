"use client";

import { type KeyboardEvent, type ReactNode, useId, useRef, useState } from "react";

export interface ViewTab {
  id: string;
  label: string;
  content: ReactNode;
}

/**
 * Tabs in the WAI-ARIA pattern: one tab in the Tab order, arrow keys (and
 * Home/End) move between tabs and show the one reached, the panel is named by
 * its tab. Only the chosen panel is rendered.
 */
export function ViewTabs({ label, tabs }: { label: string; tabs: ViewTab[] }) {
  const [selectedId, setSelectedId] = useState(tabs[0]?.id ?? "");
  const baseId = useId();
  const buttons = useRef(new Map<string, HTMLButtonElement>());
  const selected = tabs.find((tab) => tab.id === selectedId) ?? tabs[0];

  function onKeyDown(event: KeyboardEvent<HTMLButtonElement>, index: number) {
    const last = tabs.length - 1;
    const next =
      event.key === "ArrowRight"
        ? index === last
          ? 0
          : index + 1
        : event.key === "ArrowLeft"
          ? index === 0
            ? last
            : index - 1
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? last
              : null;
    if (next === null) return;
    event.preventDefault();
    const tab = tabs[next];
    if (!tab) return;
    setSelectedId(tab.id);
    buttons.current.get(tab.id)?.focus();
  }

  if (!selected) return null;
  return (
    <div className="view-tabs">
      <div role="tablist" aria-label={label} className="tab-list">
        {tabs.map((tab, index) => {
          const isSelected = tab.id === selected.id;
          return (
            <button
              key={tab.id}
              ref={(element) => {
                if (element) buttons.current.set(tab.id, element);
                else buttons.current.delete(tab.id);
              }}
              type="button"
              role="tab"
              id={`${baseId}-tab-${tab.id}`}
              aria-selected={isSelected}
              // Only the chosen panel is in the page: a tab names no panel that is not there.
              aria-controls={isSelected ? `${baseId}-panel-${tab.id}` : undefined}
              tabIndex={isSelected ? 0 : -1}
              onClick={() => setSelectedId(tab.id)}
              onKeyDown={(event) => onKeyDown(event, index)}
            >
              {tab.label}
            </button>
          );
        })}
      </div>
      <div
        role="tabpanel"
        id={`${baseId}-panel-${selected.id}`}
        aria-labelledby={`${baseId}-tab-${selected.id}`}
        className="tab-panel"
      >
        {selected.content}
      </div>
    </div>
  );
}
