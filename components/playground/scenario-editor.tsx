"use client";

import { useRef } from "react";

/**
 * A plain-text JSON editor with line numbers. Tab is left to move focus, so
 * the page stays usable from the keyboard; the issues list below it names
 * problems by JSON path.
 */
export function ScenarioEditor({
  value,
  onChange,
  describedBy,
  isInvalid,
}: {
  value: string;
  onChange(value: string): void;
  describedBy: string;
  isInvalid: boolean;
}) {
  const gutter = useRef<HTMLDivElement>(null);
  const lineCount = value.split("\n").length;
  return (
    <div className="editor">
      <div className="editor-gutter" ref={gutter} aria-hidden="true">
        {Array.from({ length: lineCount }, (_, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a line number is its own identity
          <div key={index}>{index + 1}</div>
        ))}
      </div>
      <textarea
        id="scenario-json"
        className="editor-text"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onScroll={(event) => {
          if (gutter.current) gutter.current.scrollTop = event.currentTarget.scrollTop;
        }}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        wrap="off"
        aria-describedby={describedBy}
        aria-invalid={isInvalid}
      />
    </div>
  );
}
