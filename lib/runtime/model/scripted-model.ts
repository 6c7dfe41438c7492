import { RuntimeError } from "../errors";
import { waitForDelay } from "../tools/wait-for-delay";
import type { Model, ModelCompletion } from "./model";

/** A scripted turn: the calls' `arguments` are raw text or an object (serialised as JSON). */
export interface ScriptedTurn {
  text?: string;
  /** How long the answer takes; a cancelled run stops waiting at once. */
  delayMs?: number;
  calls: Array<{ id?: string; name: string; arguments: string | Record<string, unknown> }>;
}

/** The script has no turn left for the completion the run asked for. */
export class ScriptExhaustedError extends RuntimeError {
  static override readonly brand: string = "ScriptExhaustedError";
  declare readonly code: "script_exhausted";
  readonly turnCount: number;
  constructor(turnCount: number) {
    super(
      "script_exhausted",
      `The scripted model has ${turnCount} turn${turnCount === 1 ? "" : "s"} and all were used; the run asked for another completion.`,
    );
    this.turnCount = turnCount;
  }
}

/**
 * A model that answers completion N with turn N of a script (docs/scenario-format.md), repairs
 * included. Stateless: the position is the run's persisted completion count,
 * so a run resumed in another process continues the script where it was.
 */
export function createScriptedModel(turns: readonly ScriptedTurn[]): Model {
  return {
    name: "scripted",
    async complete({ completionIndex, transcript, signal }): Promise<ModelCompletion> {
      // Completions the runtime answered for the script (legacy policy) took none of its turns.
      const synthesized = transcript.filter(
        (entry) => entry.role === "assistant" && entry.synthesized,
      ).length;
      const turn = turns[completionIndex - synthesized];
      if (!turn) throw new ScriptExhaustedError(turns.length);
      if (turn.delayMs) await waitForDelay(turn.delayMs, signal ?? new AbortController().signal);
      return {
        text: turn.text ?? null,
        calls: turn.calls.map((call) => ({
          ...(call.id === undefined ? {} : { id: call.id }),
          name: call.name,
          arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
        })),
      };
    },
  };
}
