/**
 * The most a completion's text may hold, in UTF-16 code units (what a string's
 * `length` counts): a page of the run, the event log and the model's own
 * transcript carry it, so a model that answers with 20 MB of text must not
 * make the run that big. Far above what a reply to a person needs.
 */
export const MAX_MODEL_TEXT_LENGTH = 100_000;

/**
 * The text as a run keeps it: unchanged when it fits; otherwise its start,
 * cut on a character boundary, and a marker saying how long it was, the two
 * together within the limit (so a text kept once is kept as it is again,
 * when a recorded run is replayed).
 */
export function capModelText(text: string | null): string | null {
  if (text === null || text.length <= MAX_MODEL_TEXT_LENGTH) return text;
  const marker = `\n[… the model's text was cut here: it was ${text.length.toLocaleString("en-US")} characters long, and a run keeps at most ${MAX_MODEL_TEXT_LENGTH.toLocaleString("en-US")}]`;
  let end = MAX_MODEL_TEXT_LENGTH - marker.length;
  // Never half of a surrogate pair.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end) + marker;
}
