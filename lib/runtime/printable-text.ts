/**
 * Characters that do not show as themselves: controls (NUL, newline), invisible formatting
 * (bidirectional overrides, zero-width joiners), unpaired surrogates, private use, and line or
 * paragraph separators. Each can make one text read as another, or break what stores and shows it.
 */
export const UNPRINTABLE_CHARACTER = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Zl}\p{Zp}]/u;

/** The most characters of a client's text a message quotes. */
export const MAX_QUOTED_LENGTH = 64;

/**
 * Text a client sent (an id from the path, a query value) as a message may quote it: in double
 * quotes, cut to `maxLength` characters with "…", and each character that would not show as itself
 * written as JSON escapes it (`\n`, `\u0000`), the invisible ones too, which JSON leaves as they are
 * (`\u202e`). A message echoing a path's id then stays short, and `/api/runs/%E2%80%AE…` cannot
 * make what follows it read backwards.
 */
export function quoteSentText(text: string, maxLength = MAX_QUOTED_LENGTH): string {
  // By code point, so a cut never splits a surrogate pair into an unpaired half.
  const characters = Array.from(text);
  const shown = characters.slice(0, maxLength).map(escapeCharacter).join("");
  return `"${shown}${characters.length > maxLength ? "…" : ""}"`;
}

function escapeCharacter(character: string): string {
  const json = JSON.stringify(character).slice(1, -1);
  if (json !== character || !UNPRINTABLE_CHARACTER.test(character)) return json;
  let escaped = "";
  for (let index = 0; index < character.length; index += 1) {
    escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, "0")}`;
  }
  return escaped;
}
