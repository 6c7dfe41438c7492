import { type Scenario, validateScenario } from "@/lib/runtime/browser";
import {
  findConfigurationIssues,
  type ServerConfiguration,
} from "@/lib/scenarios/check-scenario-configuration";

export type ScenarioTextCheck =
  | { ok: true; scenario: Scenario; document: Record<string, unknown> }
  | { ok: false; issues: Array<{ path: string; message: string }>; document: Record<string, unknown> | null };

/**
 * Checks the editor's text as the server will when the run starts: the same
 * schema first, then — once the scenario is well formed — the model endpoint
 * and MCP servers it names against what this server configured. Every
 * problem shows, by JSON path, before anything is sent. `document` is the
 * parsed JSON object when there is one (the limit fields edit it).
 */
export function checkScenarioText(text: string, configured: ServerConfiguration): ScenarioTextCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, issues: [{ path: "", message: `Not valid JSON: ${message}` }], document: null };
  }
  const document =
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  // Everything but compiling custom tools' schemas, which the page's CSP forbids (no eval): the server
  // compiles them when the run starts and refuses one that does not compile, by its path.
  const result = validateScenario(value, { compileSchemas: false });
  if (!result.ok) return { ok: false, issues: result.issues, document };
  const issues = findConfigurationIssues(result.scenario, configured);
  return issues.length > 0
    ? { ok: false, issues, document: document ?? {} }
    : { ok: true, scenario: result.scenario, document: document ?? {} };
}
