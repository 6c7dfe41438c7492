import type { Model } from "./model";
import { createScriptedModel, type ScriptedTurn } from "./scripted-model";

/**
 * A model whose first completions are answered from a script, then asked
 * for real: a fork of a recorded run replays what the model said before the
 * fork step, and the endpoint takes over from there (docs/transcript-and-fork.md).
 * Stateless like the script: the position is the run's completion count, so
 * a run taken over by another worker goes on at the same place.
 */
export function withReplayedTurns(turns: readonly ScriptedTurn[], model: Model): Model {
  if (turns.length === 0) return model;
  const script = createScriptedModel(turns);
  return {
    ...model,
    complete: (request) =>
      request.completionIndex < turns.length ? script.complete(request) : model.complete(request),
  };
}
