import "server-only";
import { createScriptedModel, type Model, type Scenario, withReplayedTurns } from "@/lib/runtime";
import type { ModelEndpoints } from "@/lib/server/config/model-endpoints";
import { createOpenAiCompatibleModel, ModelRequestError } from "./openai-compatible-model";

/**
 * The model a scenario names (`model.kind`, docs/scenario-format.md#models); a real model must be
 * one the operator configured.
 */
export function createModelForScenario(scenario: Scenario, registry: ModelEndpoints): Model {
  const model = scenario.model;
  if (model.kind === "scripted") return createScriptedModel(model.turns);
  if (model.kind === "agent") {
    // The run host gives agent runs their mailbox model itself (lib/runtime/agent).
    return {
      complete: async () => {
        throw new ModelRequestError(
          "An agent's run takes its turns from the agent, not from a model endpoint.",
        );
      },
    };
  }
  const endpoint = registry.endpoints.get(model.endpoint);
  if (!endpoint) {
    // Checked when the run started; the configuration changed since.
    return {
      complete: async () => {
        throw new ModelRequestError(`The model endpoint "${model.endpoint}" is no longer configured.`);
      },
    };
  }
  // A fork of a recorded run replays the completions before its fork step (docs/transcript-and-fork.md).
  return withReplayedTurns(
    model.replayTurns ?? [],
    createOpenAiCompatibleModel({
      name: model.endpoint,
      endpoint,
      system: model.system,
      temperature: model.temperature,
    }),
  );
}
