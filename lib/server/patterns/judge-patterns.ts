import "server-only";
import {
  findSchemaPatterns,
  parseScenarioValue,
  readPatternVerdict,
  readScenarioJson,
  recordPatternCheck,
  type Scenario,
  type SchemaPattern,
} from "@/lib/runtime";
import { getPatternCheckWorker } from "./pattern-check-worker";

/**
 * Judges patterns on the worker thread and keeps each verdict in the runtime
 * this module was bundled with, the one its caller compiles schemas with:
 * compiling then only reads verdicts, and this thread never runs a check.
 * Patterns already judged cost nothing.
 */
export async function judgePatterns(patterns: readonly SchemaPattern[]): Promise<void> {
  const seen = new Set<string>();
  const unjudged = patterns.filter((pattern) => {
    const key = `${pattern.flags}/${pattern.pattern}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return readPatternVerdict(pattern) === undefined;
  });
  if (unjudged.length === 0) return;
  for (const [pattern, outcome] of await getPatternCheckWorker().check(unjudged)) {
    recordPatternCheck(pattern, outcome);
  }
}

/** The patterns of a scenario's custom tools, read from it as it came in (not yet validated). */
export function findScenarioPatterns(input: unknown): SchemaPattern[] {
  const tools = (input as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool) => findSchemaPatterns((tool as { parameters?: unknown } | null)?.parameters));
}

/**
 * A scenario's JSON text, validated after its tools' patterns were judged off
 * this thread (the playground's actions); throws `InvalidScenarioError`
 * naming every problem, as `parseScenarioJson` does.
 */
export async function parseScenarioTextOffThread(text: string): Promise<Scenario> {
  const value = readScenarioJson(text);
  await judgePatterns(findScenarioPatterns(value));
  return parseScenarioValue(value);
}
