import { z } from "zod";
import { MAX_PERSON_NAME_LENGTH } from "./person-name";
import { UNPRINTABLE_CHARACTER } from "./printable-text";

// Nothing a name needs, and each can make a name look like another or break what stores and shows it.
const isPrintable = (name: string) => !UNPRINTABLE_CHARACTER.test(name);
const PRINTABLE_ONLY = "only printable characters (no control or invisible ones)";

/**
 * A person's display name, the same on every path that sets one (sign-up,
 * the account's own update, an admin adding someone, the CLI, the first
 * administrator): trimmed, not empty, at most {@link MAX_PERSON_NAME_LENGTH}
 * characters, printable. Its length is checked before anything else reads it.
 */
export const personNameSchema = z
  .string()
  .max(MAX_PERSON_NAME_LENGTH * 4, `at most ${MAX_PERSON_NAME_LENGTH} characters`)
  .trim()
  .min(1, "name the person")
  .max(MAX_PERSON_NAME_LENGTH, `at most ${MAX_PERSON_NAME_LENGTH} characters`)
  .refine(isPrintable, PRINTABLE_ONLY);

/**
 * A name an outside program gives something people are shown beside other names (an agent, its
 * run): not empty, at most `maxLength` characters, printable as a person's name must be, so that
 * `\u202e` cannot make one read as another on /runs, the inbox and the audit.
 */
export function printableNameSchema(maxLength: number) {
  return z.string().min(1).max(maxLength).refine(isPrintable, PRINTABLE_ONLY);
}
