"use client";

import { useMemo, useState } from "react";
import { measureJsonDepth } from "@/lib/runtime/browser";

/** Characters shown before "Show all": a page stays small however large the value. */
const PREVIEW_CHARS = 4000;
/** Pretty-printing indents by depth, so a deep value would grow quadratically: past this, shown compact. */
const MAX_PRETTY_DEPTH = 16;
const MAX_PRETTY_CHARS = 100_000;

/**
 * Shows a value as JSON: indented when it is small and shallow, compact
 * otherwise; raw model arguments that are not JSON exactly as sent. A long
 * value shows its start, with "Show all" and "Download" for the rest.
 */
export function JsonBlock({
  value,
  isRaw = false,
  label,
}: {
  value: unknown;
  isRaw?: boolean;
  label: string;
}) {
  const text = useMemo(() => formatJson(value, isRaw), [value, isRaw]);
  const [isExpanded, setExpanded] = useState(false);
  const isLong = text.length > PREVIEW_CHARS;
  return (
    <div className="json-block-frame">
      {/* A box that scrolls must be reachable from the keyboard to be scrolled (WCAG 2.1.1). */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box is focusable so arrow keys scroll it */}
      <pre className="json-block" tabIndex={0}>
        {isLong && !isExpanded ? `${text.slice(0, PREVIEW_CHARS)}…` : text}
      </pre>
      {isLong && (
        <div className="json-block-actions">
          <button type="button" onClick={() => setExpanded(!isExpanded)}>
            {isExpanded ? "Show less" : `Show all (${formatSize(text.length)})`}
            <span className="visually-hidden"> of the {label}</span>
          </button>
          <button type="button" onClick={() => download(text, `${label.replaceAll(/\W+/g, "-")}.json`)}>
            Download<span className="visually-hidden"> the {label}</span>
          </button>
        </div>
      )}
    </div>
  );
}

function formatJson(value: unknown, isRaw: boolean): string {
  if (isRaw) {
    const raw = String(value);
    if (raw.length > MAX_PRETTY_CHARS || measureJsonDepth(raw) > MAX_PRETTY_DEPTH) return raw;
    try {
      return JSON.stringify(JSON.parse(raw), null, 2);
    } catch {
      return raw;
    }
  }
  try {
    const compact = JSON.stringify(value) ?? String(value);
    const isPlain = compact.length <= MAX_PRETTY_CHARS && measureJsonDepth(compact) <= MAX_PRETTY_DEPTH;
    return isPlain ? JSON.stringify(value, null, 2) : compact;
  } catch {
    return "(this value is too deeply nested to show)";
  }
}

function formatSize(characters: number): string {
  return characters < 10_000 ? `${characters} characters` : `${Math.round(characters / 1024)} KB`;
}

function download(text: string, fileName: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.click();
  URL.revokeObjectURL(url);
}
