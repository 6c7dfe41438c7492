/**
 * Fork from a step (docs/transcript-and-fork.md): a recorded run as the
 * scenario of a new run that goes over the same ground up to a step and may
 * go elsewhere from there. Built on record and replay (`exportRunAsScenario`):
 *
 * - The steps before the fork step replay what the model answered then, and
 *   the decisions taken then are the scenario's `decisions` (applied by a
 *   headless run, the CLI; in the playground you take them again).
 * - From the fork step on, a scripted run's recorded turns stay as they were,
 *   for you to edit; the decisions recorded from there on are left out, as
 *   that is what one forks to change.
 * - A real model's run keeps its endpoint and prompt (yours to edit): the
 *   turns before the fork step are its `replayTurns`, and the endpoint is
 *   asked from the fork step on.
 *
 * Pure: the caller has already read the run (and may see it).
 */
import { RuntimeError } from "../errors";
import type { RunView } from "../events/run-view";
import { MAX_SCENARIO_NAME_LENGTH, type Scenario, type ScenarioInput } from "../scenario/scenario-schema";
import { exportRunAsScenario } from "./export-scenario";

/** Where a fork comes from: the run, and the step (1-based, as the run page numbers them) it starts again at. */
export interface ForkOrigin {
  runId: string;
  step: number;
}

/** A fork's scenario, what it leaves to the person starting it, and where it came from. */
export interface ForkedScenario {
  scenario: ScenarioInput;
  /** What the fork cannot reproduce or leaves to you, in words. */
  notes: string[];
  forkedFrom: ForkOrigin;
}

/** A fork was asked for at a step the run does not have. */
export class ForkStepOutOfRangeError extends RuntimeError {
  static override readonly brand: string = "ForkStepOutOfRangeError";
  declare readonly code: "invalid_request";
  readonly runId: string;
  readonly step: unknown;
  readonly stepCount: number;
  /** The problem as a request's field names it (`step`), for the 400's `issues`. */
  readonly issues: Array<{ path: string; message: string }>;
  constructor(runId: string, step: unknown, stepCount: number) {
    super(
      "invalid_request",
      stepCount === 0
        ? `Run ${runId} has no steps yet, so there is no step to fork from.`
        : `Run ${runId} has ${stepCount === 1 ? "1 step" : `${stepCount} steps`}; fork from a step between 1 and ${stepCount}, not ${JSON.stringify(step)}.`,
    );
    this.runId = runId;
    this.step = step;
    this.stepCount = stepCount;
    this.issues = [
      {
        path: "step",
        message:
          stepCount === 0
            ? "cannot be given yet: the run has no steps to fork from"
            : `must be between 1 and ${stepCount}, a step the run has; got ${JSON.stringify(step)}`,
      },
    ];
  }
}

/** Checks that `step` (1-based) is a step of the run; throws {@link ForkStepOutOfRangeError} when not. */
export function checkForkStep(view: Pick<RunView, "runId" | "steps">, step: unknown): number {
  if (typeof step !== "number" || !Number.isInteger(step) || step < 1 || step > view.steps.length) {
    throw new ForkStepOutOfRangeError(view.runId, step, view.steps.length);
  }
  return step;
}

/**
 * The run (its stored scenario and its view) as the scenario of a fork from
 * `step` (1-based), as described above; throws {@link ForkStepOutOfRangeError}
 * for a step the run does not have. Never reads or stores anything.
 */
export function forkRunAsScenario(original: Scenario, view: RunView, step: unknown): ForkedScenario {
  const forkStep = checkForkStep(view, step);
  const forkIndex = forkStep - 1;
  const replay = exportRunAsScenario(original, view);
  const replayed = view.decisions.filter(
    (decision) => decision.kind === "decision" && decision.stepIndex < forkIndex,
  ).length;
  const decisions = (replay.scenario.decisions ?? []).slice(0, replayed);
  const recordedTurns = replay.scenario.model.kind === "scripted" ? replay.scenario.model.turns : [];
  // An agent's notes say how its tools answer in the script; the others are about replaying every step.
  const notes = original.model.kind === "agent" ? [...replay.notes] : [];
  const name = forkName(original.name, forkStep);
  if (forkIndex > 0) {
    notes.push(
      `Steps 1 to ${forkIndex} replay what the model answered then. In the playground you decide their barriers again; a headless run (the CLI) applies the ${replayed === 1 ? "decision" : `${replayed} decisions`} taken then.`,
    );
  }
  if (original.model.kind === "openai-compatible") {
    const { replayTurns: _, ...model } = original.model;
    notes.push(
      forkIndex > 0
        ? `The ${original.model.endpoint} endpoint is asked from step ${forkStep} on, with the prompt below; edit it to try another.`
        : `The ${original.model.endpoint} endpoint is asked again from the start, with the prompt below; edit it to try another.`,
    );
    return {
      scenario: {
        ...replay.scenario,
        name,
        model: { ...model, ...(forkIndex > 0 ? { replayTurns: recordedTurns.slice(0, forkIndex) } : {}) },
        decisions,
      },
      notes,
      forkedFrom: { runId: view.runId, step: forkStep },
    };
  }
  notes.push(
    `From step ${forkStep} on, the model's recorded turns are in model.turns for you to change; no decision is taken for you there.`,
  );
  return {
    scenario: { ...replay.scenario, name, decisions },
    notes,
    forkedFrom: { runId: view.runId, step: forkStep },
  };
}

/**
 * "<name> (fork of step N)", the name shortened (ending in "…") so that the fork's stays within
 * {@link MAX_SCENARIO_NAME_LENGTH}: a fork of a run with a long name must start as it is.
 */
function forkName(name: string, forkStep: number): string {
  const suffix = ` (fork of step ${forkStep})`;
  const room = MAX_SCENARIO_NAME_LENGTH - suffix.length; // in UTF-16 units, as the limit counts
  if (name.length <= room) return `${name}${suffix}`;
  let kept = "";
  // Whole code points only, so a character outside the BMP is never cut in half.
  for (const character of name) {
    if (kept.length + character.length > room - 1) break;
    kept += character;
  }
  return `${kept}…${suffix}`;
}
