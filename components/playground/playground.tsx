"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useMemo, useRef, useState } from "react";
import { startComparisonAction } from "@/app/actions/start-comparison";
import { startRunAction } from "@/app/actions/start-run";
import {
  buildPreamble,
  createToolRegistry,
  DEFAULT_LIMITS,
  type Limits,
  type Scenario,
} from "@/lib/runtime/browser";
import type { ServerConfiguration } from "@/lib/scenarios/check-scenario-configuration";
import { findPreset, SCENARIO_PRESETS } from "@/lib/scenarios/scenario-presets";
import { useCan } from "../auth/viewer-context";
import { HowItWorks } from "../help/how-it-works";
import { ConfirmDialog } from "../ui/confirm-dialog";
import { type EditorProblem, JsonEditor, type JsonEditorHandle } from "../ui/json-editor";
import { checkScenarioText } from "./check-scenario-text";
import { locateScenarioIssue } from "./locate-json-path";
import { buildPromptTemplate, PROMPT_TEMPLATE_ID } from "./prompt-template";

const PROMPT_ID = PROMPT_TEMPLATE_ID;

const LIMIT_FIELDS: Array<{ key: keyof Limits; label: string; min: number; max: number }> = [
  { key: "maxParallelToolCalls", label: "Max parallel tool calls", min: 1, max: 1024 },
  { key: "maxBatchPayloadBytes", label: "Max batch payload (bytes)", min: 1, max: 16 * 1024 * 1024 },
  { key: "maxRepairAttempts", label: "Max repair attempts", min: 0, max: 10 },
];

/** A configured model endpoint as the playground shows it: its name and model id, never its URL or key. */
export interface ModelChoice {
  name: string;
  model: string;
}

/** The preset list's value while a run opened as a scenario is shown. */
const FROM_RUN_ID = "from-run";

/** Compose a scenario (from a preset or by hand), check it as you type, adjust limits, start a run. */
export function Playground({
  initialPresetId,
  initialScenario,
  forkProblem,
  unknownPresetId,
  models,
  modelsProblem,
  configured,
}: {
  initialPresetId: string;
  /** The address asked for a preset that does not exist: the first one is shown, and the page says so. */
  unknownPresetId?: string;
  /**
   * A scenario to open instead of the preset (a run saved as a scenario, or a
   * fork of one from a step), with what its replay cannot reproduce.
   */
  initialScenario?: {
    scenario: unknown;
    notes: string[];
    fromRunId: string;
    forkedFrom?: { runId: string; step: number };
  };
  /** Why the fork a link asked for could not be opened. */
  forkProblem?: string;
  models: ModelChoice[];
  modelsProblem: string | null;
  /** What this server configured: a scenario naming anything else is refused before it is sent. */
  configured: ServerConfiguration;
}) {
  const router = useRouter();
  const textOf = (id: string) => {
    const scenario =
      id === PROMPT_ID ? buildPromptTemplate(models[0]?.name ?? "my-model") : findPreset(id)?.scenario;
    return `${JSON.stringify(scenario ?? {}, null, 2)}\n`;
  };
  const canStart = useCan("operator");
  // A run opened as a scenario is no preset: the list says so until another is chosen.
  const [presetId, setPresetId] = useState(initialScenario ? FROM_RUN_ID : initialPresetId);
  const [text, setText] = useState(() =>
    initialScenario ? `${JSON.stringify(initialScenario.scenario, null, 2)}\n` : textOf(initialPresetId),
  );
  const check = useMemo(() => checkScenarioText(text, configured), [text, configured]);
  // Each problem with where it is in the text: the list jumps there and the editor underlines it.
  const locatedIssues = useMemo(
    () =>
      check.ok ? [] : check.issues.map((issue) => ({ ...issue, location: locateScenarioIssue(text, issue) })),
    [check, text],
  );
  const editorProblems = useMemo(
    () =>
      locatedIssues.flatMap(({ path, message, location }): EditorProblem[] =>
        location
          ? [{ from: location.from, to: location.to, message: path ? `${path}: ${message}` : message }]
          : [],
      ),
    [locatedIssues],
  );
  const editor = useRef<JsonEditorHandle>(null);
  const editorLabelId = useId();
  const issuesId = useId();
  const startReasonId = useId();
  const preset = findPreset(presetId);
  const forkedFrom = initialScenario?.forkedFrom;
  const start = useMutation({
    mutationFn: () =>
      startRunAction({
        scenarioText: text,
        // Still the fork until another preset replaces it: the new run records where it came from.
        ...(forkedFrom && presetId === FROM_RUN_ID ? { forkedFrom } : {}),
      }),
    onSuccess: (result) => {
      if (result.ok) router.push(`/runs/${result.data.runId}`);
    },
  });
  const refusal = start.data && !start.data.ok ? start.data.error : null;
  // The same scenario under barriers and under the legacy policy, side by side.
  const compare = useMutation({
    mutationFn: () => startComparisonAction({ scenarioText: text }),
    onSuccess: (result) => {
      if (result.ok) router.push(`/compare?runs=${result.data.runIds.join(",")}`);
    },
  });
  const compareRefusal = compare.data && !compare.data.ok ? compare.data.error : null;
  const isStarting = start.isPending || (start.data?.ok ?? false);

  // A preset asked for over edited text waits for the person's answer in the dialog below.
  const [pendingPresetId, setPendingPresetId] = useState<string | null>(null);

  function choosePreset(id: string) {
    if (text !== textOf(presetId)) setPendingPresetId(id);
    else applyPreset(id);
  }

  function applyPreset(id: string) {
    setPresetId(id);
    setText(textOf(id));
    // The address names the preset, so a reload or a shared link opens the same one.
    window.history.replaceState(null, "", `?preset=${encodeURIComponent(id)}`);
    start.reset();
  }

  function setLimit(key: keyof Limits, raw: string) {
    if (!check.document) return;
    // Anything but a number is kept as typed, so the schema names it instead of it silently becoming 0.
    const value = raw.trim() === "" ? Number.NaN : Number(raw);
    const limits = {
      ...(check.document.limits as Partial<Limits> | undefined),
      [key]: Number.isFinite(value) ? value : raw,
    };
    setText(`${JSON.stringify({ ...check.document, limits }, null, 2)}\n`);
  }

  const documentLimits = (check.document?.limits ?? {}) as Partial<Record<keyof Limits, unknown>>;

  return (
    <div className="playground">
      <aside className="panel playground-controls" aria-label="Run setup">
        <h1>Playground</h1>
        <label htmlFor="preset">Preset</label>
        <ConfirmDialog
          isOpen={pendingPresetId !== null}
          title="Replace your edits?"
          confirmLabel="Replace with the preset"
          cancelLabel="Keep my edits"
          onConfirm={() => pendingPresetId !== null && applyPreset(pendingPresetId)}
          onClose={() => setPendingPresetId(null)}
        >
          <p>
            The scenario was edited. Loading “{findPreset(pendingPresetId ?? "")?.title ?? pendingPresetId}”
            replaces the text with the preset's; your edits are not kept.
          </p>
        </ConfirmDialog>
        <select id="preset" value={presetId} onChange={(event) => choosePreset(event.target.value)}>
          {["Example scenarios", "Planning rules"].map((group) => (
            <optgroup key={group} label={group}>
              {SCENARIO_PRESETS.filter((candidate) => candidate.group === group).map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.title}
                </option>
              ))}
            </optgroup>
          ))}
          <optgroup label="Your own model">
            <option value={PROMPT_ID}>Prompt a model (OpenAI-compatible endpoint)</option>
          </optgroup>
          {initialScenario && (
            <option value={FROM_RUN_ID} disabled>
              {forkedFrom ? `A fork of a saved run (step ${forkedFrom.step})` : "A saved run (replay)"}
            </option>
          )}
        </select>
        {unknownPresetId !== undefined && presetId === initialPresetId && (
          <p className="notice" role="status">
            There is no preset named <code>{unknownPresetId}</code>; showing &ldquo;{preset?.title}&rdquo;
            instead. Choose another above.
          </p>
        )}
        {forkProblem && (
          <p className="alert" role="alert">
            <strong>The fork could not be opened.</strong> {forkProblem}
          </p>
        )}
        {initialScenario && (
          <div className="notice" role="status">
            {forkedFrom ? (
              <>
                Forked from run{" "}
                <a href={`/runs/${initialScenario.fromRunId}`}>{initialScenario.fromRunId.slice(0, 8)}</a> at
                step {forkedFrom.step}. Edit it (a limit, a turn, a prompt) and start it; the new run records
                where it came from.
              </>
            ) : (
              <>
                Opened from run{" "}
                <a href={`/runs/${initialScenario.fromRunId}`}>{initialScenario.fromRunId.slice(0, 8)}</a> as
                a scripted scenario that replays it.
              </>
            )}
            {initialScenario.notes.length > 0 && (
              <ul>
                {initialScenario.notes.map((note) => (
                  <li key={note}>{note}</li>
                ))}
              </ul>
            )}
          </div>
        )}
        {presetId !== FROM_RUN_ID && (
          <p className="muted preset-summary">
            {preset?.summary ?? <ModelEndpointsNote models={models} problem={modelsProblem} />}
          </p>
        )}
        <fieldset className="limits" disabled={!check.document}>
          <legend>Limits</legend>
          {LIMIT_FIELDS.map((field) => (
            <label key={field.key}>
              {field.label}
              <input
                type="number"
                inputMode="numeric"
                min={field.min}
                max={field.max}
                value={String(documentLimits[field.key] ?? DEFAULT_LIMITS[field.key])}
                aria-invalid={!check.ok && check.issues.some((issue) => issue.path === `limits.${field.key}`)}
                onChange={(event) => setLimit(field.key, event.target.value)}
              />
            </label>
          ))}
        </fieldset>
        <HowItWorks
          cap={
            typeof documentLimits.maxParallelToolCalls === "number"
              ? documentLimits.maxParallelToolCalls
              : DEFAULT_LIMITS.maxParallelToolCalls
          }
        />
        <p className="muted">
          Runs started here wait for you at every barrier; a scenario&rsquo;s <code>decisions</code> are used
          only by the CLI.
        </p>
        <button
          type="button"
          className="primary"
          disabled={!check.ok || isStarting || !canStart}
          aria-describedby={`${startReasonId} ${issuesId}`}
          onClick={() => start.mutate()}
        >
          {isStarting ? "Starting…" : "Start run"}
        </button>
        <button
          type="button"
          disabled={!check.ok || isStarting || compare.isPending || !canStart}
          onClick={() => compare.mutate()}
        >
          {compare.isPending ? "Starting both…" : "Run under both policies"}
        </button>
        <p id={startReasonId} className="muted start-reason">
          {!canStart
            ? "Starting runs needs the operator role; you can watch runs and the inbox."
            : !check.ok
              ? `Start run is off until the scenario is fixed: ${describeFirstIssue(check.issues)}`
              : ""}
        </p>
        {(refusal ?? compareRefusal) && (
          <div className="alert" role="alert">
            <strong>The run was not started.</strong> {(refusal ?? compareRefusal)?.message}
          </div>
        )}
      </aside>
      <section className="panel editor-panel" aria-label="Scenario">
        {/* Not a <label>: the editor is a contenteditable, which a label's `for` cannot name. */}
        <div id={editorLabelId} className="editor-label">
          Scenario JSON
        </div>
        <JsonEditor
          ref={editor}
          id="scenario-json"
          value={text}
          onChange={setText}
          labelledBy={editorLabelId}
          describedBy={issuesId}
          isInvalid={!check.ok}
          problems={editorProblems}
        />
        <div id={issuesId} className="validation">
          {/* Only the one-line summary is announced, not the whole list on every keystroke. */}
          <p className={check.ok ? "valid" : "invalid"} aria-live="polite">
            {check.ok
              ? `Valid scenario: ${check.scenario.name}`
              : `${check.issues.length === 1 ? "1 problem" : `${check.issues.length} problems`} to fix before starting:`}
          </p>
          {check.ok && check.scenario.model.kind === "openai-compatible" && (
            <PreamblePreview scenario={check.scenario} />
          )}
          {!check.ok && (
            <ul aria-label="Scenario problems">
              {locatedIssues.map(({ path, message, location }) => (
                <li key={`${path}:${message}`}>
                  {location && (
                    <>
                      <button
                        type="button"
                        className="editor-jump"
                        aria-label={`Go to line ${location.line}: ${path || "(root)"}`}
                        onClick={() => editor.current?.revealRange(location.from, location.to)}
                      >
                        line {location.line}
                      </button>{" "}
                    </>
                  )}
                  <code>{path || "(root)"}</code> {message}
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>
    </div>
  );
}

/** The first problem in a line, and how many more there are (the list beside the editor has them all). */
function describeFirstIssue(issues: Array<{ path: string; message: string }>): string {
  const [first] = issues;
  if (!first) return "";
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return `${first.path ? `${first.path}: ` : ""}${first.message}${more}.`;
}

/** What a real model is told before the scenario's own system prompt, for this scenario's cap and tools. */
function PreamblePreview({ scenario }: { scenario: Scenario }) {
  const preamble = buildPreamble(
    { ...DEFAULT_LIMITS, ...scenario.limits },
    // Names and descriptions only: compiling schemas generates code, which the page's CSP forbids.
    createToolRegistry({ tools: scenario.tools, approvals: scenario.approvals, compileSchemas: false }),
  );
  return (
    <details className="preamble">
      <summary>
        What the model is told first (preamble v{preamble.version}), before your system prompt
      </summary>
      <pre>{preamble.text}</pre>
    </details>
  );
}

/** Which model endpoints a prompt can name, or how the operator adds one. */
function ModelEndpointsNote({ models, problem }: { models: ModelChoice[]; problem: string | null }) {
  if (models.length > 0) {
    return (
      <>
        Set <code>model.endpoint</code> to a configured model:{" "}
        {models.map((model, index) => (
          <span key={model.name}>
            {index > 0 ? ", " : ""}
            <code>{model.name}</code> ({model.model})
          </span>
        ))}
        .
      </>
    );
  }
  return (
    <>
      {problem
        ? `The model configuration could not be read: ${problem}. `
        : "No model endpoint is configured. "}
      The server's operator adds one with <code>PLAYGROUND_MODELS</code>, for example{" "}
      <code>{'{"local":{"baseURL":"http://127.0.0.1:11434/v1","model":"llama3.1"}}'}</code>, and restarts the
      server.
    </>
  );
}
