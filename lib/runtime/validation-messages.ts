import { z } from "zod";
import { formatIssuePath } from "./format-issue-path";
import { countMore, cutEchoed } from "./refusal-limits";

/**
 * Validation messages in words a person uses: "must be a whole number", not
 * zod's "Invalid input: expected int, received number". Installed as zod's
 * global error map ({@link installValidationMessages}) by the runtime's
 * barrel on the server and by instrumentation-client.ts in the browser, so
 * every surface that checks input (the playground as you type, the HTTP API's
 * 400s, the CLI) says the same thing. A message a schema sets itself still
 * wins over these.
 */
export function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "is required" : `must be ${describeType(issue.expected)}`;
    case "too_small":
      return describeBound(issue.origin, "least", issue.minimum, issue.inclusive);
    case "too_big":
      return describeBound(issue.origin, "most", issue.maximum, issue.inclusive);
    case "unrecognized_keys":
      return `has ${issue.keys.length === 1 ? "a field" : "fields"} this format does not have: ${nameKeys(issue.keys)}`;
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    case "invalid_format":
      return issue.format === "regex" ? "is not in the expected form" : `must be a valid ${issue.format}`;
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    case "invalid_union": {
      // A discriminated union names the values its tag may take.
      const options = "options" in issue && Array.isArray(issue.options) ? issue.options : [];
      if (options.length > 0)
        return `must be one of ${options.map((option) => JSON.stringify(option)).join(", ")}`;
      return describeUnionMismatch("errors" in issue && Array.isArray(issue.errors) ? issue.errors : []);
    }
    default:
      return undefined;
  }
}

/** At most this many unknown keys are named in a message; the rest are counted. */
const MAX_NAMED_KEYS = 10;

/** `"a", "b"`; a body may send 150,000 keys, or one of a megabyte: the first few, each cut, then how many more. */
function nameKeys(keys: ReadonlyArray<string>): string {
  const named = keys.slice(0, MAX_NAMED_KEYS).map((key) => JSON.stringify(cutEchoed(key)));
  const more = keys.length - named.length;
  return `${named.join(", ")}${more > 0 ? ` and ${countMore(more, "field")}` : ""}`;
}

/** At most this many of the closest shape's issues are named in a union's message. */
const MAX_NAMED_UNION_ISSUES = 5;

/**
 * A value no shape of a plain union accepts: what is wrong with it in the shape that came
 * closest (zod's `errors` has one issue list per shape), each issue with its path from the
 * union's place, so a sender can fix it. When every shape refused the value itself (a union of
 * kinds of value, `string | number`), each shape's wish is said instead.
 */
function describeUnionMismatch(errors: ReadonlyArray<ReadonlyArray<z.core.$ZodIssue>>): string {
  const closest = findClosestShape(errors);
  if (!closest) return "does not match any of the accepted shapes";
  if (errors.every((shape) => shape.length === 1 && shape[0]?.path.length === 0)) {
    return [...new Set(errors.map((shape) => shape[0]?.message))].join(", or ");
  }
  const named = closest
    .slice(0, MAX_NAMED_UNION_ISSUES)
    .map((issue) =>
      issue.path.length === 0 ? issue.message : `${formatIssuePath(issue.path)} ${issue.message}`,
    );
  const more = closest.length - named.length;
  return `does not match any of the accepted shapes (the closest: ${named.join("; ")}${more > 0 ? `; and ${more} more` : ""})`;
}

/**
 * The shape a sender most likely meant: the fewest literal values refused (a `kind` or `ok` that
 * names another shape), then the fewest issues, then the deepest one (the sender got furthest
 * into it), then the first declared.
 */
function findClosestShape(
  errors: ReadonlyArray<ReadonlyArray<z.core.$ZodIssue>>,
): ReadonlyArray<z.core.$ZodIssue> | undefined {
  let closest: ReadonlyArray<z.core.$ZodIssue> | undefined;
  let closestRank: number[] = [];
  for (const shape of errors) {
    if (shape.length === 0) continue;
    const rank = [
      shape.filter((issue) => issue.code === "invalid_value" && issue.values.length === 1).length,
      shape.length,
      -Math.max(...shape.map((issue) => issue.path.length)),
    ];
    if (closest === undefined || isRankedBefore(rank, closestRank)) {
      closest = shape;
      closestRank = rank;
    }
  }
  return closest;
}

function isRankedBefore(rank: number[], other: number[]): boolean {
  for (const [index, value] of rank.entries()) {
    const otherValue = other[index] ?? 0;
    if (value !== otherValue) return value < otherValue;
  }
  return false;
}

const TYPE_WORDS: Record<string, string> = {
  int: "a whole number",
  // JSON Schema's name (a tool's argument schema), beside zod's `int`.
  integer: "a whole number",
  number: "a number",
  string: "text (a JSON string)",
  boolean: "true or false",
  array: "a list (a JSON array)",
  object: "an object",
  record: "an object",
  null: "null",
  bigint: "a whole number",
};

/**
 * A kind of value in a person's words ("text (a JSON string)", "a whole number"), by zod's or
 * JSON Schema's name for it; a name it does not know is said as it is.
 */
export function describeType(expected: string): string {
  return TYPE_WORDS[expected] ?? expected;
}

function describeBound(
  origin: string,
  direction: "least" | "most",
  bound: number | bigint | Date,
  inclusive: boolean | undefined,
): string {
  const value = Number(bound);
  switch (origin) {
    case "string":
      if (direction === "least" && value === 1) return "must not be empty";
      return `must be at ${direction} ${value} character${value === 1 ? "" : "s"} long`;
    case "array":
    case "set":
      if (direction === "least" && value === 1) return "must not be empty";
      return `must have at ${direction} ${value} item${value === 1 ? "" : "s"}`;
    default:
      if (inclusive === false) return `must be ${direction === "least" ? "more" : "less"} than ${value}`;
      return `must be at ${direction} ${value}`;
  }
}

/** Makes {@link describeIssue} zod's global error map; calling it again changes nothing. */
export function installValidationMessages(): void {
  z.config({ customError: describeIssue });
}
