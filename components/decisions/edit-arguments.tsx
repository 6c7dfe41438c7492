"use client";

import { useEffect, useId, useState } from "react";
import { checkDecisionAction } from "@/app/actions/check-decision";
import { JsonEditor } from "../ui/json-editor";
import { LineDiff } from "../ui/line-diff";

/** The problem is named below the editor (the server's message has no position in the text). */
const NO_PROBLEMS: never[] = [];

/** How long typing pauses before the server checks the edit. */
const CHECK_DELAY_MS = 300;

interface EditArgumentsProps {
  runId: string;
  turnDigest: string;
  call: { name: string; arguments: string; batchIndex: number };
  isPending: boolean;
  onApprove(editedArguments: Record<string, unknown>): void;
  onCancel(): void;
}

/**
 * Edit, then approve: the barrier's arguments in the JSON editor the playground uses, prefilled
 * with what the model sent, checked as the person types (JSON here, then the
 * tool's own schema and preflight on the server, exactly as the decision will
 * be), with the change shown as a diff against the original.
 */
export function EditArguments({
  runId,
  turnDigest,
  call,
  isPending,
  onApprove,
  onCancel,
}: EditArgumentsProps) {
  const original = prettyArguments(call.arguments);
  const [text, setText] = useState(original);
  const parsed = parseObject(text);
  const [serverProblem, setServerProblem] = useState<{ text: string; message: string | null } | null>(null);
  const fieldId = useId();
  const labelId = useId();
  const problemId = useId();

  // The server checks each text once it stops changing; an answer for an older text is dropped.
  useEffect(() => {
    const edited = parseObject(text);
    if (!edited.ok) return;
    let isCurrent = true;
    const timer = setTimeout(async () => {
      const result = await checkDecisionAction({
        runId,
        approve: true,
        turnDigest,
        editedArguments: edited.value,
      }).catch(() => null);
      if (!isCurrent) return;
      const message =
        result === null
          ? "The server could not check the arguments."
          : result.ok
            ? null
            : result.error.message;
      setServerProblem({ text, message });
    }, CHECK_DELAY_MS);
    return () => {
      isCurrent = false;
      clearTimeout(timer);
    };
  }, [runId, turnDigest, text]);

  const isChecked = parsed.ok && serverProblem?.text === text;
  const problem = !parsed.ok ? parsed.message : isChecked ? (serverProblem?.message ?? null) : null;
  const canApprove = parsed.ok && isChecked && problem === null && !isPending;
  const isChanged = parsed.ok && JSON.stringify(parsed.value, null, 2) !== original;

  return (
    <form
      className="edit-arguments"
      aria-label={`Edit the arguments of ${call.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (canApprove && parsed.ok) onApprove(parsed.value);
      }}
    >
      {/* Not a <label>: the editor is a contenteditable, which a label's `for` cannot name. */}
      <div id={labelId} className="editor-label">
        Arguments of {call.name} (call {call.batchIndex}), as JSON
      </div>
      <JsonEditor
        id={fieldId}
        value={text}
        onChange={setText}
        onEscape={onCancel}
        labelledBy={labelId}
        describedBy={problemId}
        isInvalid={problem !== null}
        problems={NO_PROBLEMS}
        isCompact
      />
      <p id={problemId} className={problem ? "field-problem" : "muted"} role={problem ? "alert" : "status"}>
        {problem ?? (isChecked ? "The tool accepts these arguments." : "Checking…")}
      </p>
      {isChanged && parsed.ok && (
        <LineDiff
          before={original}
          after={JSON.stringify(parsed.value, null, 2)}
          caption="Changes from what the model sent"
        />
      )}
      <div className="decision-actions">
        <button type="submit" className="primary" disabled={!canApprove}>
          Approve with these arguments
        </button>
        <button type="button" onClick={onCancel}>
          Cancel edit
        </button>
      </div>
    </form>
  );
}

/** The model's raw arguments, pretty-printed when they are JSON (else as sent). */
function prettyArguments(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

function parseObject(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      message: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, message: "The arguments must be a JSON object, such as {}." };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
