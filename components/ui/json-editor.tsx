"use client";

import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { json } from "@codemirror/lang-json";
import { bracketMatching, HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { type Diagnostic, setDiagnostics } from "@codemirror/lint";
import { Annotation, Compartment, EditorState } from "@codemirror/state";
import {
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { type Ref, useEffect, useImperativeHandle, useRef, useState } from "react";

/** What a page can ask of the editor besides its text. */
export interface JsonEditorHandle {
  /** Selects `from`–`to`, scrolls it into view and moves focus to the editor. */
  revealRange(from: number, to: number): void;
}

/** A problem to underline in the text; `from`/`to` are offsets into the current value. */
export interface EditorProblem {
  from: number;
  to: number;
  message: string;
}

/** Marks the transactions that bring the document in line with the `value` prop, so they are not echoed back. */
const fromProps = Annotation.define<true>();
/** The content element's id and ARIA attributes, swapped when the props change. */
const contentAttributes = new Compartment();

// Colours come from the app's CSS variables, so the editor follows the light and dark schemes with the page.
const highlightStyle = HighlightStyle.define([
  { tag: tags.propertyName, color: "var(--color-accent)" },
  { tag: tags.string, color: "var(--color-ok)" },
  // Mixed towards the text colour: plain --color-warn is short of 4.5:1 on the light active line.
  { tag: tags.number, color: "color-mix(in srgb, var(--color-warn) 80%, var(--color-text))" },
  { tag: [tags.bool, tags.null], color: "color-mix(in srgb, var(--color-accent) 50%, var(--color-error))" },
]);

const theme = EditorView.theme({
  "&": {
    height: "100%",
    color: "var(--color-text)",
    backgroundColor: "var(--color-surface)",
  },
  // On the editor, not the content: the content scrolls, so an outline on it would be cut off.
  "&.cm-focused": { outline: "3px solid var(--color-accent)", outlineOffset: "-3px" },
  ".cm-scroller": { fontFamily: "var(--font-mono)", lineHeight: "1.5" },
  ".cm-content": { caretColor: "var(--color-text)", padding: "0.5rem 0" },
  ".cm-line": { padding: "0 0.75rem 0 0.5rem" },
  ".cm-gutters": {
    backgroundColor: "var(--color-bg)",
    color: "var(--color-muted)",
    borderRight: "1px solid var(--color-border)",
  },
  ".cm-lineNumbers .cm-gutterElement": { padding: "0 0.5rem 0 0.75rem" },
  ".cm-activeLine": { backgroundColor: "color-mix(in srgb, var(--color-accent) 6%, var(--color-surface))" },
  ".cm-activeLineGutter": {
    backgroundColor: "color-mix(in srgb, var(--color-accent) 12%, var(--color-bg))",
    color: "var(--color-text)",
  },
  "&.cm-focused .cm-matchingBracket": {
    backgroundColor: "color-mix(in srgb, var(--color-ok) 25%, transparent)",
    outline: "1px solid var(--color-ok)",
  },
  "&.cm-focused .cm-nonmatchingBracket": {
    backgroundColor: "color-mix(in srgb, var(--color-error) 25%, transparent)",
  },
  ".cm-specialChar": { color: "var(--color-error)" },
  // A wavy underline in the error colour instead of lint's fixed-colour image, which ignores dark mode.
  ".cm-lintRange-error": {
    backgroundImage: "none",
    textDecoration: "underline wavy var(--color-error)",
    textDecorationSkipInk: "none",
    textUnderlineOffset: "3px",
  },
  ".cm-lintPoint-error:after": { borderBottomColor: "var(--color-error)" },
  ".cm-tooltip": {
    backgroundColor: "var(--color-surface)",
    color: "var(--color-text)",
    border: "1px solid var(--color-border)",
    borderRadius: "6px",
  },
  ".cm-diagnostic-error": { borderLeftColor: "var(--color-error)" },
});

/**
 * A JSON editor (CodeMirror), with highlighting, undo, bracket matching and the problems
 * underlined: the playground's scenario and a decision's edited arguments. Tab is not bound, so it
 * still moves focus and the page stays usable from the keyboard; the problems list below the
 * editor names each problem and jumps to it. `isCompact` sizes it to its text (up to a limit).
 * `language: "text"` edits other text the same way, without JSON's highlighting (a policy's YAML).
 */
export function JsonEditor({
  id,
  value,
  onChange,
  labelledBy,
  describedBy,
  isInvalid,
  problems,
  isCompact = false,
  language = "json",
  onEscape,
  ref,
}: {
  id: string;
  value: string;
  onChange(value: string): void;
  labelledBy: string;
  describedBy: string;
  isInvalid: boolean;
  problems: readonly EditorProblem[];
  isCompact?: boolean;
  language?: "json" | "text";
  /** Escape in the editor (a form's "cancel"). */
  onEscape?(): void;
  ref?: Ref<JsonEditorHandle>;
}) {
  const host = useRef<HTMLDivElement>(null);
  // Only the first render's value seeds the editor; later values arrive through the effect below.
  const initialValue = useRef(value);
  const latestOnChange = useRef(onChange);
  const latestOnEscape = useRef(onEscape);
  // Like the value, read once: a compact editor wraps long lines instead of scrolling sideways.
  const wrapsLines = useRef(isCompact);
  const isJson = useRef(language === "json");
  const [view, setView] = useState<EditorView | null>(null);

  useEffect(() => {
    latestOnChange.current = onChange;
    latestOnEscape.current = onEscape;
  });

  // CodeMirror needs the DOM, so it starts here, after hydration; until then the text shows in a <pre>.
  useEffect(() => {
    if (!host.current) return;
    const created = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: initialValue.current,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightSpecialChars(),
          history(),
          bracketMatching(),
          highlightActiveLine(),
          isJson.current ? json() : [],
          syntaxHighlighting(highlightStyle),
          keymap.of([
            // Escape is the page's (cancel an edit) only when the page asks for it; otherwise CodeMirror's.
            {
              key: "Escape",
              run: () => {
                const onEscapeNow = latestOnEscape.current;
                onEscapeNow?.();
                return onEscapeNow !== undefined;
              },
            },
            ...defaultKeymap,
            ...historyKeymap,
          ]),
          theme,
          wrapsLines.current ? EditorView.lineWrapping : [],
          contentAttributes.of([]),
          EditorView.updateListener.of((update) => {
            if (
              update.docChanged &&
              !update.transactions.some((transaction) => transaction.annotation(fromProps))
            ) {
              latestOnChange.current(update.state.doc.toString());
            }
          }),
        ],
      }),
    });
    setView(created);
    return () => created.destroy();
  }, []);

  useEffect(() => {
    view?.dispatch({
      effects: contentAttributes.reconfigure(
        EditorView.contentAttributes.of({
          id,
          "aria-labelledby": labelledBy,
          "aria-describedby": describedBy,
          "aria-invalid": String(isInvalid),
          // Already in the tab order as contenteditable; said outright so checkers (axe's
          // scrollable-region-focusable) see that the scrolling box holds a focusable element.
          tabindex: "0",
        }),
      ),
    });
  }, [view, id, labelledBy, describedBy, isInvalid]);

  // One effect for both, in this order: the problems' offsets are into `value`, not the old document.
  useEffect(() => {
    if (!view) return;
    const current = view.state.doc.toString();
    if (current !== value)
      view.dispatch({ changes: changeBetween(current, value), annotations: fromProps.of(true) });
    view.dispatch(
      setDiagnostics(
        view.state,
        problems.map((problem) => toDiagnostic(view.state, problem)),
      ),
    );
  }, [view, value, problems]);

  useImperativeHandle(
    ref,
    () => ({
      revealRange(from, to) {
        if (!view) return;
        const anchor = Math.min(from, view.state.doc.length);
        const head = Math.min(to, view.state.doc.length);
        view.dispatch({
          selection: { anchor, head },
          // The start, centred: a long object's first line says what it is.
          effects: EditorView.scrollIntoView(anchor, { y: "center" }),
          userEvent: "select",
        });
        view.focus();
      },
    }),
    [view],
  );

  return (
    <div className={isCompact ? "editor editor-compact" : "editor"}>
      <div ref={host} className="editor-host" />
      {!view && <pre className="editor-fallback">{value}</pre>}
    </div>
  );
}

/**
 * The one replacement that turns `before` into `after`, leaving their common start and end alone:
 * a limit field rewrites one number, and the cursor elsewhere stays where it was.
 */
function changeBetween(before: string, after: string) {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start += 1;
  let beforeEnd = before.length;
  let afterEnd = after.length;
  while (beforeEnd > start && afterEnd > start && before[beforeEnd - 1] === after[afterEnd - 1]) {
    beforeEnd -= 1;
    afterEnd -= 1;
  }
  return { from: start, to: beforeEnd, insert: after.slice(start, afterEnd) };
}

/** Underlines no further than the end of the problem's first line: a whole object underlined is noise. */
function toDiagnostic(state: EditorState, problem: EditorProblem): Diagnostic {
  const from = Math.min(problem.from, state.doc.length);
  const to = Math.min(problem.to, state.doc.lineAt(from).to);
  return { from, to: Math.max(from, to), severity: "error", message: problem.message };
}
