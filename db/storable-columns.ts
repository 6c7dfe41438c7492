import { customType } from "drizzle-orm/pg-core";

/**
 * Column types that store any JavaScript string, including the two things
 * Postgres refuses: the NUL character (in `text` and in `jsonb`) and half of a
 * surrogate pair (in `jsonb`, where `JSON.stringify` writes it as a `\udXXX`
 * escape). Each becomes U+FFFD, the replacement character, so a model or a
 * tool that produces them can never make a write fail and strand a run.
 * Input from clients is refused before it gets here (`findUnstorableString`);
 * this is the last line, for what the server itself produces.
 */

// An escape `\u0000` or `\ud800`–`\udfff` preceded by an even number of backslashes (so not `\\u0000`).
const UNSTORABLE_JSON_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi;

/** JSON text with every NUL and lone-surrogate escape replaced by U+FFFD. */
export function toStorableJson(json: string): string {
  return json.includes("\\u") ? json.replace(UNSTORABLE_JSON_ESCAPE, "$1\\ufffd") : json;
}

/** Text with every NUL replaced by U+FFFD (a lone surrogate becomes U+FFFD when the driver encodes UTF-8). */
export function toStorableText(text: string): string {
  return text.includes("\0") ? text.replaceAll("\0", "\uFFFD") : text;
}

/** `jsonb` that stores any value `JSON.stringify` accepts. */
export const storableJsonb = customType<{ data: unknown; driverData: string }>({
  dataType: () => "jsonb",
  toDriver: (value) => toStorableJson(JSON.stringify(value)),
  fromDriver: (value) => (typeof value === "string" ? JSON.parse(value) : value),
});

/** `text` that stores any string. */
export const storableText = customType<{ data: string; driverData: string }>({
  dataType: () => "text",
  toDriver: (value) => toStorableText(value),
});
