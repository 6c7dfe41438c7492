import "server-only";
import { z } from "zod";
import { InvalidScenarioError, type Scenario } from "@/lib/runtime";
import { findModelEndpointIssues } from "@/lib/scenarios/check-scenario-configuration";
import { readJsonConfig } from "./read-json-config";

/**
 * The model endpoints the operator configured. Scenarios name one of these
 * (`model.endpoint`); they never carry a URL or a key variable, so no client
 * can make the server send its secrets, or its requests, anywhere else.
 */
export const modelEndpointSchema = z
  .object({
    baseURL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
    model: z.string().min(1),
    /** The server's environment variable that holds the key (sent as a bearer token). */
    apiKeyEnv: z.string().min(1).optional(),
    /** How long one completion may take before the run fails with `model_failed`. */
    timeoutMs: z.number().int().positive().max(3_600_000).default(60_000),
    /** How often a failed completion (connection, 408, 409, 429, 5xx) is tried again, with backoff. */
    maxRetries: z.number().int().min(0).max(10).default(2),
    /**
     * Whether completions are asked for as a stream (`stream: true`), shown as they are
     * generated; an endpoint that answers whole is read whole (docs/transcript-and-fork.md#streamed-output).
     */
    stream: z.boolean().default(true),
  })
  .strict();

const endpointNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "1-64 letters, digits, '_', '.' or '-'");

export const modelEndpointsSchema = z.record(endpointNameSchema, modelEndpointSchema);

export type ModelEndpoint = z.infer<typeof modelEndpointSchema>;

/** The configured endpoints by name, and what was wrong with the configuration if it could not be read. */
export interface ModelEndpoints {
  endpoints: ReadonlyMap<string, ModelEndpoint>;
  problem: string | null;
}

/** What the playground may show of an endpoint: never its URL's credentials or its key. */
export interface ModelEndpointSummary {
  name: string;
  model: string;
}

/**
 * Reads the endpoints from `PLAYGROUND_MODELS` (JSON) or the JSON file named
 * by `PLAYGROUND_MODELS_FILE`: `{ "<name>": { baseURL, model, apiKeyEnv?,
 * timeoutMs?, maxRetries?, stream? } }`. A configuration that cannot be read configures nothing
 * and says why (the playground shows it; the server logs it once).
 */
export function readModelEndpoints(env: Record<string, string | undefined> = process.env): ModelEndpoints {
  const { value, problem } = readJsonConfig(env, "PLAYGROUND_MODELS", modelEndpointsSchema);
  return { endpoints: new Map(Object.entries(value ?? {})), problem };
}

export function summarizeModelEndpoints(registry: ModelEndpoints): ModelEndpointSummary[] {
  return [...registry.endpoints].map(([name, endpoint]) => ({ name, model: endpoint.model }));
}

/** Refuses a scenario that names an endpoint the operator did not configure (400, naming `model.endpoint`). */
export function checkScenarioModel(scenario: Scenario, registry: ModelEndpoints): void {
  const issues = findModelEndpointIssues(scenario.model, [...registry.endpoints.keys()]);
  if (issues.length > 0) throw new InvalidScenarioError(issues);
}
