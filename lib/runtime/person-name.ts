/** The longest name a person may give themself (characters, after trimming). */
export const MAX_PERSON_NAME_LENGTH = 100;

/**
 * A name as it may be shown: names stored before names were limited (on
 * runs, in the audit, on an account) can be of any size, and a page shows at
 * most {@link MAX_PERSON_NAME_LENGTH} characters of one.
 */
export function capPersonName(name: string): string {
  return name.length > MAX_PERSON_NAME_LENGTH ? `${name.slice(0, MAX_PERSON_NAME_LENGTH - 1)}…` : name;
}
