import "server-only";
import { createScriptedModel, type Model, type Scenario } from "@/lib/runtime";
import { createOpenAiCompatibleModel } from "./openai-compatible-model";

/** The model a scenario names (SPEC §8 `model.kind`). */
export function createModelForScenario(scenario: Scenario): Model {
  const model = scenario.model;
  if (model.kind === "scripted") return createScriptedModel(model.turns);
  return createOpenAiCompatibleModel(model);
}
