import type { z } from "zod";
import { RuntimeError } from "../errors";
import { formatIssuePath } from "../format-issue-path";
import { findJsonValueProblem, MAX_JSON_DEPTH, measureJsonDepth } from "../json-limits";
import { listIssues } from "../refusal-limits";
import { type Scenario, scenarioSchema, scenarioSchemaWithoutCompiling } from "./scenario-schema";

/** One problem with a scenario, located by its JSON path (`model.turns[0].calls[1].name`). */
export interface ScenarioIssue {
  path: string;
  message: string;
}

/**
 * A scenario that cannot run; `issues` names each problem found by its path: the first
 * `MAX_LISTED_ISSUES`, then how many more (`listIssues`), as its message does. The HTTP API
 * answers with both (an agent's run opened with 100,000 bad workspace paths).
 */
export class InvalidScenarioError extends RuntimeError {
  static override readonly brand: string = "InvalidScenarioError";
  readonly issues: ScenarioIssue[];
  constructor(issues: ScenarioIssue[]) {
    const listed = listIssues(issues, "(root)");
    super("invalid_scenario", `Invalid scenario: ${listed.line}`);
    this.issues = listed.issues;
  }
}

/**
 * A scenario's issues keep their keys whole: the playground finds each issue in its editor by its
 * path, and a workspace path may be long. What is said back over HTTP is cut where it is said
 * (`InvalidScenarioError`, by `listIssues`).
 */
const WHOLE_KEYS = Number.POSITIVE_INFINITY;

function toIssues(error: z.ZodError): ScenarioIssue[] {
  return error.issues.map((issue) => ({
    path: formatIssuePath(issue.path, WHOLE_KEYS),
    message: issue.message,
  }));
}

/**
 * Validates a scenario (already parsed from JSON) against the format of docs/scenario-format.md.
 * Returns the scenario with defaults filled in, or every issue found; never throws.
 * First, without recursion: nothing nests deeper than `MAX_JSON_DEPTH` and
 * every string can be stored (no NUL, no unpaired surrogate).
 * `compileSchemas: false` compiles no custom tool's argument schema (for a
 * browser page: see `scenarioSchemaWithoutCompiling`).
 */
export function validateScenario(
  input: unknown,
  options: { compileSchemas?: boolean } = {},
): { ok: true; scenario: Scenario } | { ok: false; issues: ScenarioIssue[] } {
  const problem = findJsonValueProblem(input);
  if (problem)
    return {
      ok: false,
      issues: [{ path: formatIssuePath(problem.path, WHOLE_KEYS), message: problem.message }],
    };
  const schema = options.compileSchemas === false ? scenarioSchemaWithoutCompiling : scenarioSchema;
  const parsed = schema.safeParse(input);
  return parsed.success ? { ok: true, scenario: parsed.data } : { ok: false, issues: toIssues(parsed.error) };
}

/**
 * A scenario file's JSON, parsed but not yet validated (to look at before
 * validating, as the server does for the patterns of its tools); throws
 * {@link InvalidScenarioError} for text that nests too deep or is not JSON.
 */
export function readScenarioJson(text: string): unknown {
  if (measureJsonDepth(text) > MAX_JSON_DEPTH) {
    throw new InvalidScenarioError([{ path: "", message: `nests deeper than ${MAX_JSON_DEPTH} levels` }]);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidScenarioError([
      { path: "", message: `not valid JSON (${error instanceof Error ? error.message : String(error)})` },
    ]);
  }
}

/** Like {@link validateScenario}; throws {@link InvalidScenarioError}. */
export function parseScenarioValue(value: unknown): Scenario {
  const result = validateScenario(value);
  if (!result.ok) throw new InvalidScenarioError(result.issues);
  return result.scenario;
}

/** Like {@link validateScenario}, from JSON text; throws {@link InvalidScenarioError}. */
export function parseScenarioJson(text: string): Scenario {
  return parseScenarioValue(readScenarioJson(text));
}
