/**
 * Record and replay: a run, above all a real-model one, as a scripted
 * scenario that reproduces it. Each completion becomes a scripted turn with
 * its text and its calls exactly as the model sent them (ids and raw
 * argument strings, malformed ones included); the workspace, limits, tools
 * and approval settings are the run's own; the decisions taken become the
 * scenario's `decisions`, variants included. Replaying it headless gives the
 * same plans, segments and outcomes.
 *
 * What a script cannot replay is left out and said in `notes`: a wait that
 * expired (there is no decision to replay; the replay waits there), a
 * cancellation, and the real model's prompt (the script answers instead).
 */

import type { RunView } from "../events/run-view";
import type { Scenario, ScenarioInput } from "../scenario/scenario-schema";

export interface ExportedScenario {
  scenario: ScenarioInput;
  /** What the replay cannot reproduce, in words; empty when it reproduces everything. */
  notes: string[];
}

export function exportRunAsScenario(original: Scenario, view: RunView): ExportedScenario {
  const notes: string[] = [];
  if (original.model.kind === "agent") {
    notes.push(
      `The turns of the agent ${original.model.agent.name} are replayed from the record, and its declared tools answer with the results it reported.`,
    );
  } else if (original.model.kind !== "scripted") {
    notes.push(
      `The completions of the ${original.model.endpoint} endpoint are replayed from the record; the prompt is not sent again.`,
    );
  }
  const decisions = view.decisions.flatMap((decision) => {
    if (decision.kind === "expiry") {
      notes.push(
        `The wait at step ${decision.stepIndex + 1} expired; the replay waits there for a decision.`,
      );
      return [];
    }
    // Nobody decided it: the approval it voids is replayed; whether the tool changes again is the server's.
    if (decision.kind === "voided") return [];
    return [
      {
        approve: decision.approve,
        actor: decision.actor,
        ...(decision.reason ? { reason: decision.reason } : {}),
        ...(decision.editedArguments !== null
          ? { editedArguments: JSON.parse(decision.editedArguments) }
          : {}),
        ...(decision.scope === "turn" ? { scope: "turn" as const } : {}),
        ...(decision.allowTool !== null ? { alwaysAllow: true } : {}),
      },
    ];
  });
  const cancelled = view.steps.some((step) =>
    step.calls.some((call) => call.error?.code === "invalidated" && /cancelled/.test(call.error.message)),
  );
  if (cancelled || view.status === "CANCELLED") {
    notes.push("The run was cancelled by a person; the replay goes on where the cancel stopped it.");
  }
  const { model: _, decisions: __, ...kept } = original;
  return {
    scenario: {
      ...kept,
      ...(original.model.kind === "agent" ? { tools: withReportedResults(original, view, notes) } : {}),
      name: `${original.name} (replay)`,
      limits: view.limits ?? original.limits,
      model: {
        kind: "scripted",
        turns: view.steps.map((step) => ({
          ...(step.text !== null ? { text: step.text } : {}),
          calls: step.calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
        })),
      },
      decisions,
    },
    notes,
  };
}

/**
 * An agent's declared tools as a script replays them: each answers with the
 * result the agent reported for its last successful call (a custom tool has
 * one result, so calls of one tool that answered differently are noted).
 */
function withReportedResults(original: Scenario, view: RunView, notes: string[]): Scenario["tools"] {
  return original.tools.map((tool) => {
    const results = view.steps.flatMap((step) =>
      step.calls.filter((call) => call.name === tool.name && call.status === "ok").map((call) => call.result),
    );
    if (results.length === 0) return tool;
    const distinct = new Set(results.map((result) => JSON.stringify(result)));
    if (distinct.size > 1) {
      notes.push(
        `${tool.name} answered ${distinct.size} different results; the replay answers every call with the last.`,
      );
    }
    return { ...tool, result: results.at(-1) };
  });
}
