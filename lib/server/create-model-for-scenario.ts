import "server-only";
import type { Model } from "@/lib/runtime/model/model";
import { createScriptedModel } from "@/lib/runtime/model/scripted-model";
import type { Scenario } from "@/lib/runtime/scenario/scenario-schema";
import { createOpenAiCompatibleModel } from "./openai-compatible-model";

/** The model a scenario names (SPEC §8 `model.kind`). */
export function createModelForScenario(scenario: Scenario): Model {
  const model = scenario.model;
  if (model.kind === "scripted") return createScriptedModel(model.turns);
  return createOpenAiCompatibleModel(model);
}
