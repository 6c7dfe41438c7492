/**
 * Regular expressions from scenario schemas (`pattern`, `patternProperties`)
 * are matched against model output on the server. A pattern with
 * catastrophic backtracking (`^(a+)+$`) could hold the event loop for
 * seconds or hours, so each one is checked with redos-detector before Ajv
 * compiles it, and refused when it is not provably safe in time.
 *
 * Checking is itself costly: proving a bad pattern unsafe usually takes the
 * whole time allowed. So verdicts are kept (a bounded, least recently used
 * cache), and a host that can judge patterns elsewhere (the server's worker
 * thread) fills the cache first with {@link recordPatternCheck}; Ajv's
 * factory then only reads verdicts. A pattern nobody judged yet is judged
 * here, synchronously, within the tool set's budget (the CLI, the browser).
 */
import { isSafePattern } from "redos-detector";

/** Longer patterns are refused outright: nothing a tool's arguments need, and costly to check. */
export const MAX_PATTERN_LENGTH = 512;
/** Time one pattern may take to check, and all the patterns of one tool set checked here together. */
export const PATTERN_CHECK_BUDGET_MS = 250;
/** Verdicts kept, the least recently used forgotten first. */
export const MAX_REMEMBERED_VERDICTS = 1000;
/** How long a verdict about the checker rather than the pattern (no time left, too busy) is kept. */
const PASSING_VERDICT_MS = 5_000;

/** A pattern as Ajv compiles it: its source and flags (Ajv adds `u`). */
export interface SchemaPattern {
  pattern: string;
  flags: string;
}

/** What redos-detector said of a pattern: its `safe` and `error`, or the parse error of an invalid one. */
export type PatternCheckOutcome =
  | { safe: boolean; error: string | null; budgetMs: number }
  | { invalid: string }
  | { unchecked: string };

// Verdicts by flags and pattern: null when safe, else why it is refused. A Map keeps insertion
// order, so re-inserting on use makes its first key the least recently used.
const verdicts = new Map<string, { verdict: string | null; expiresAt: number | null }>();
let inlineChecks = 0;

const keyOf = ({ pattern, flags }: SchemaPattern) => `${flags}/${pattern}`;

/** The verdict kept for a pattern (null: safe), or undefined when there is none (or it passed). */
export function readPatternVerdict(pattern: SchemaPattern): string | null | undefined {
  const key = keyOf(pattern);
  const kept = verdicts.get(key);
  if (!kept) return undefined;
  verdicts.delete(key);
  if (kept.expiresAt !== null && kept.expiresAt <= Date.now()) return undefined;
  verdicts.set(key, kept);
  return kept.verdict;
}

/**
 * Keeps the verdict of a check made elsewhere (or here). A verdict about the
 * checker rather than the pattern (a time-out with less than the full
 * budget, a checker too busy) is kept a few seconds only, so the same
 * request refused twice costs nothing and a later one is judged afresh.
 */
export function recordPatternCheck(pattern: SchemaPattern, outcome: PatternCheckOutcome): string | null {
  const verdict = describePatternCheck(pattern.pattern, outcome);
  const passing =
    "unchecked" in outcome ||
    ("safe" in outcome && outcome.error === "timedOut" && outcome.budgetMs < PATTERN_CHECK_BUDGET_MS);
  const key = keyOf(pattern);
  verdicts.delete(key);
  verdicts.set(key, { verdict, expiresAt: passing ? Date.now() + PASSING_VERDICT_MS : null });
  const oldest = verdicts.keys().next().value;
  if (verdicts.size > MAX_REMEMBERED_VERDICTS && oldest !== undefined) verdicts.delete(oldest);
  return verdict;
}

/** The refusal of a pattern too long to be worth checking, or null. */
function tooLongVerdict(pattern: string): string | null {
  return pattern.length > MAX_PATTERN_LENGTH ? `is longer than ${MAX_PATTERN_LENGTH} characters` : null;
}

function describePatternCheck(pattern: string, outcome: PatternCheckOutcome): string | null {
  const tooLong = tooLongVerdict(pattern);
  if (tooLong) return tooLong;
  if ("unchecked" in outcome) return outcome.unchecked;
  if ("invalid" in outcome) return `is not a valid regular expression (${outcome.invalid})`;
  if (outcome.safe) return null;
  if (outcome.error === "timedOut") return "could not be proven safe in time; simplify it";
  return "can take exponential or polynomial time on some inputs (nested or overlapping repetition); simplify it";
}

/** Checks a pattern with redos-detector, here and now (it holds this thread for up to `budgetMs`). */
export function checkPatternNow(pattern: SchemaPattern, budgetMs: number): PatternCheckOutcome {
  // Refused by its length alone (see describePatternCheck), unchecked.
  if (tooLongVerdict(pattern.pattern)) return { safe: false, error: null, budgetMs };
  inlineChecks += 1;
  try {
    const result = isSafePattern(pattern.pattern, {
      timeout: budgetMs,
      unicode: pattern.flags.includes("u"),
    });
    return { safe: result.safe, error: result.error ?? null, budgetMs };
  } catch (error) {
    return { invalid: error instanceof Error ? error.message : String(error) };
  }
}

/** How many patterns this thread has checked itself (tests: the server leaves that to its worker). */
export function countInlinePatternChecks(): number {
  return inlineChecks;
}

/**
 * Every pattern Ajv would compile for a schema: `pattern` strings and the
 * keys of `patternProperties`, wherever they are. A string under a key named
 * `pattern` that is not a keyword is included too: judging more costs
 * nothing but time, judging less would let Ajv meet a pattern nobody judged.
 */
export function findSchemaPatterns(schema: unknown): SchemaPattern[] {
  const found = new Set<string>();
  const visit = (value: unknown, depth: number) => {
    if (depth > 64 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    for (const [key, member] of Object.entries(value)) {
      if (key === "pattern" && typeof member === "string") found.add(member);
      if (key === "patternProperties" && member !== null && typeof member === "object") {
        for (const source of Object.keys(member)) found.add(source);
      }
      visit(member, depth + 1);
    }
  };
  visit(schema, 0);
  return [...found].map((pattern) => ({ pattern, flags: "u" }));
}

/**
 * A `RegExp` factory for Ajv's `code.regExp` option. It throws (so Ajv
 * refuses the schema) for a pattern that is too long, not safe, or not
 * provably safe within what remains of the tool set's budget.
 */
export function createSafeRegExpFactory(): ((pattern: string, flags: string) => RegExp) & { code: string } {
  let remainingMs = PATTERN_CHECK_BUDGET_MS;
  const createRegExp = (pattern: string, flags: string): RegExp => {
    const schemaPattern = { pattern, flags };
    let verdict = readPatternVerdict(schemaPattern);
    if (verdict === undefined) {
      const started = Date.now();
      verdict = recordPatternCheck(
        schemaPattern,
        remainingMs > 0
          ? checkPatternNow(schemaPattern, remainingMs)
          : { unchecked: "could not be checked in time (the tool set has too many patterns)" },
      );
      remainingMs -= Date.now() - started;
    }
    if (verdict) throw new Error(`pattern ${JSON.stringify(pattern.slice(0, 80))} ${verdict}`);
    return new RegExp(pattern, flags);
  };
  // Ajv names the factory in code it generates for standalone validators (not used here).
  return Object.assign(createRegExp, { code: "safeRegExp" });
}
