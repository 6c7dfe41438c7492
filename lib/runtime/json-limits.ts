/**
 * Limits on JSON that comes from outside (request bodies, scenario files,
 * model arguments): how deep it may nest, and which strings can be stored.
 * Checked without recursion, so hostile input cannot overflow the stack.
 */

/**
 * The deepest nesting of arrays and objects accepted anywhere (64 levels:
 * far beyond any real scenario or tool argument, far below what recursive
 * code such as validators and renderers survives).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The nesting depth of JSON text (`{}` is 1, `{"a":[1]}` is 2), by one scan
 * that skips string contents. Malformed text gets some number; parsing is
 * what reports it.
 */
export function measureJsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let isInString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (isInString) {
      if (char === 0x5c)
        index += 1; // a backslash escapes the next character
      else if (char === 0x22) isInString = false;
    } else if (char === 0x22) {
      isInString = true;
    } else if (char === 0x7b || char === 0x5b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (char === 0x7d || char === 0x5d) {
      depth -= 1;
    }
  }
  return deepest;
}

/** Why a string cannot be stored, or null: Postgres refuses NUL, and half of a surrogate pair in `jsonb`. */
export function describeUnstorableText(text: string): string | null {
  if (text.includes("\0")) return "contains a NUL character (\\u0000), which cannot be stored";
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(index + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      index += 1; // a valid pair
      continue;
    }
    return `contains an unpaired surrogate (\\u${unit.toString(16)}), which is not valid Unicode`;
  }
  return null;
}

/** A problem found in a JSON value, located by its path (keys and indexes from the root). */
export interface JsonValueProblem {
  path: Array<string | number>;
  message: string;
}

/**
 * The first problem of a parsed JSON value, or null: nesting deeper than
 * `maxDepth`, or a key or string that cannot be stored (see
 * {@link describeUnstorableText}). Iterative, so any depth is safe to check.
 */
export function findJsonValueProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonValueProblem | null {
  const pending: Array<{ value: unknown; path: Array<string | number> }> = [{ value, path: [] }];
  while (pending.length > 0) {
    const item = pending.pop() as { value: unknown; path: Array<string | number> };
    if (typeof item.value === "string") {
      const message = describeUnstorableText(item.value);
      if (message) return { path: item.path, message };
      continue;
    }
    if (typeof item.value !== "object" || item.value === null) continue;
    const depth = item.path.length + 1;
    if (depth > maxDepth) return { path: item.path, message: `nests deeper than ${maxDepth} levels` };
    const entries: Array<[string | number, unknown]> = Array.isArray(item.value)
      ? item.value.map((element, index) => [index, element])
      : Object.entries(item.value);
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [key, child] = entries[index] as [string | number, unknown];
      if (typeof key === "string") {
        const message = describeUnstorableText(key);
        if (message) return { path: [...item.path, key], message: `has a key that ${message}` };
      }
      pending.push({ value: child, path: [...item.path, key] });
    }
  }
  return null;
}
