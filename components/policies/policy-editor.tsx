"use client";

import { useId, useMemo, useRef } from "react";
import type { PolicyProblem } from "@/lib/runtime";
import { type EditorProblem, JsonEditor, type JsonEditorHandle } from "../ui/json-editor";
import { usePolicyCheck } from "./use-policy-check";

/**
 * The policy document in an editor, checked as it is typed by the checker publish uses: each
 * problem underlined and listed with its line and reason (docs/policies.md#checked-like-code).
 */
export function PolicyEditor({ document, onChange }: { document: string; onChange(document: string): void }) {
  const labelId = useId();
  const problemsId = useId();
  const editor = useRef<JsonEditorHandle>(null);
  const check = usePolicyCheck(document);
  const problems = check.data?.problems ?? [];
  const located = useMemo(() => problems.map((problem) => locate(document, problem)), [document, problems]);
  const editorProblems: EditorProblem[] = located.map(({ problem, from, to }) => ({
    from,
    to,
    message: `${problem.path || "(document)"} ${problem.message}`,
  }));
  return (
    <>
      {/* Not a <label>: the editor is a contenteditable, which a label's `for` cannot name. */}
      <div id={labelId} className="editor-label">
        Policy (YAML)
      </div>
      <JsonEditor
        ref={editor}
        id="policy-document"
        language="text"
        value={document}
        onChange={onChange}
        labelledBy={labelId}
        describedBy={problemsId}
        isInvalid={check.data?.ok === false}
        problems={editorProblems}
      />
      <div id={problemsId} className="validation">
        <p className={check.data?.ok === false ? "invalid" : "valid"} aria-live="polite">
          {check.isError
            ? `The policy could not be checked: ${check.error.message}`
            : !check.data
              ? "Checking…"
              : check.data.ok
                ? "The policy checks: it can be backtested and published."
                : `${problems.length === 1 ? "1 problem" : `${problems.length} problems`} to fix before publishing:`}
        </p>
        {problems.length > 0 && (
          <ul aria-label="Policy problems">
            {located.map(({ problem, from, to }) => (
              <li key={`${problem.line}:${problem.path}:${problem.message}`}>
                {problem.line > 0 && (
                  <>
                    <button
                      type="button"
                      className="editor-jump"
                      aria-label={`Go to line ${problem.line}: ${problem.path || "(document)"}`}
                      onClick={() => editor.current?.revealRange(from, to)}
                    >
                      line {problem.line}
                    </button>{" "}
                  </>
                )}
                <code>{problem.path || "(document)"}</code> {problem.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    </>
  );
}

/** A problem's line as offsets into the text (line 0: the document as a whole, its start). */
function locate(text: string, problem: PolicyProblem) {
  const lines = text.split("\n");
  const index = Math.min(Math.max(problem.line, 1), lines.length) - 1;
  let from = 0;
  for (let line = 0; line < index; line += 1) from += (lines[line]?.length ?? 0) + 1;
  return { problem, from, to: from + (lines[index]?.length ?? 0) };
}
