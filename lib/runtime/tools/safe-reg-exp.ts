/**
 * Regular expressions from scenario schemas (`pattern`, `patternProperties`)
 * are matched against model output on the server. A pattern with
 * catastrophic backtracking (`^(a+)+$`) could hold the event loop for
 * seconds or hours, so each one is checked with redos-detector before Ajv
 * compiles it, and refused when it is not provably safe in time.
 */
import { isSafePattern } from "redos-detector";

/** Longer patterns are refused outright: nothing a tool's arguments need, and costly to check. */
export const MAX_PATTERN_LENGTH = 512;
/** Time all the patterns of one tool set may take to check (the whole server waits meanwhile). */
export const PATTERN_CHECK_BUDGET_MS = 250;

// Verdicts by pattern and flags; the playground rechecks the same patterns at every keystroke.
const verdicts = new Map<string, string | null>();
const MAX_REMEMBERED_VERDICTS = 1000;

/**
 * A `RegExp` factory for Ajv's `code.regExp` option. It throws (so Ajv
 * refuses the schema) for a pattern that is too long, not safe, or not
 * provably safe within what remains of the budget.
 */
export function createSafeRegExpFactory(): ((pattern: string, flags: string) => RegExp) & { code: string } {
  let remainingMs = PATTERN_CHECK_BUDGET_MS;
  const createRegExp = (pattern: string, flags: string): RegExp => {
    const key = `${flags}/${pattern}`;
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      const started = Date.now();
      verdict = judgePattern(pattern, flags, remainingMs);
      remainingMs -= Date.now() - started;
      // A time-out says as much about the budget as about the pattern: judge it afresh next time.
      if (!verdict?.includes("time") && verdicts.size < MAX_REMEMBERED_VERDICTS) verdicts.set(key, verdict);
    }
    if (verdict) throw new Error(`pattern ${JSON.stringify(pattern.slice(0, 80))} ${verdict}`);
    return new RegExp(pattern, flags);
  };
  // Ajv names the factory in code it generates for standalone validators (not used here).
  return Object.assign(createRegExp, { code: "safeRegExp" });
}

/** Why a pattern is refused, or null when it is safe. */
function judgePattern(pattern: string, flags: string, budgetMs: number): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  if (budgetMs <= 0) return "could not be checked in time (the tool set has too many patterns)";
  let result: ReturnType<typeof isSafePattern>;
  try {
    result = isSafePattern(pattern, { timeout: budgetMs, unicode: flags.includes("u") });
  } catch (error) {
    return `is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`;
  }
  if (result.safe) return null;
  if (result.error === "timedOut") return "could not be proven safe in time; simplify it";
  return "can take exponential or polynomial time on some inputs (nested or overlapping repetition); simplify it";
}
