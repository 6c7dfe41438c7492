/**
 * How much of what was sent a refusal says back. A refusal names what is wrong, and a body can be
 * wrong in 100,000 places or carry a key of a megabyte: said in full, the answer was many times
 * the size of the body and took longer to write than the body took to check. So a refusal lists
 * the first issues and says how many more there were, and cuts what it echoes.
 */

/** A refusal lists at most this many issues, then says how many more there were. */
export const MAX_LISTED_ISSUES = 20;

/** A key or value a message or a path echoes is cut to this many characters. */
export const MAX_ECHOED_LENGTH = 64;

/**
 * An issue's path or message is cut to this many characters, whatever put it there (a schema's
 * own message may echo a value): every other cap keeps real ones far below it.
 */
export const MAX_ISSUE_TEXT_LENGTH = 1_000;

/** One problem, located by its path (`model.turns[0].calls[1].name`, "" for the whole value). */
export interface PathIssue {
  path: string;
  message: string;
}

/** `text` cut to `maxLength` characters, the cut marked with "…"; text that fits, as it is. */
export function cutEchoed(text: string, maxLength = MAX_ECHOED_LENGTH): string {
  if (text.length <= maxLength) return text;
  // Never half of a surrogate pair: it would be no character at all.
  const lastUnit = text.charCodeAt(maxLength - 1);
  const end = lastUnit >= 0xd800 && lastUnit <= 0xdbff ? maxLength - 1 : maxLength;
  return `${text.slice(0, end)}…`;
}

/** "1 more issue", "99,980 more issues". */
export function countMore(count: number, noun: string): string {
  return `${count.toLocaleString("en-US")} more ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * What a refusal says of `issues`, of `total` found (more than given when the caller formatted
 * only the first): the first {@link MAX_LISTED_ISSUES}, each path and message cut to
 * {@link MAX_ISSUE_TEXT_LENGTH}, then an issue at the root saying how many more there were; and
 * the same as one line, `path: message; …`, with `rootLabel` for the root's empty path.
 */
export function listIssues(
  issues: ReadonlyArray<PathIssue>,
  rootLabel: string,
  total = issues.length,
): { issues: PathIssue[]; line: string } {
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => ({
    path: cutEchoed(issue.path, MAX_ISSUE_TEXT_LENGTH),
    message: cutEchoed(issue.message, MAX_ISSUE_TEXT_LENGTH),
  }));
  const named = listed.map((issue) => `${issue.path || rootLabel}: ${issue.message}`);
  const unlisted = Math.max(total, issues.length) - listed.length;
  if (unlisted <= 0) return { issues: listed, line: named.join("; ") };
  const more = `… and ${countMore(unlisted, "issue")}`;
  return { issues: [...listed, { path: "", message: more }], line: [...named, more].join("; ") };
}
