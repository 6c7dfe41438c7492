import { cutEchoed, MAX_ECHOED_LENGTH } from "./refusal-limits";

/**
 * Formats a zod path the way a person reads it: `tools[0].parameters`, `workspace["../x"]`. A key
 * longer than `maxKeyLength` (`MAX_ECHOED_LENGTH` unless told) is cut, the cut marked:
 * `workspace["aaa…"]` (a path is said back to whoever sent the key, and the key may be a megabyte).
 */
export function formatIssuePath(
  path: ReadonlyArray<PropertyKey>,
  maxKeyLength: number = MAX_ECHOED_LENGTH,
): string {
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      const key = cutEchoed(String(segment), maxKeyLength);
      if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `[${JSON.stringify(key)}]`;
      return index === 0 ? key : `.${key}`;
    })
    .join("");
}
