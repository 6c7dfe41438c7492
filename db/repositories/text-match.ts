import { type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";

/** A LIKE pattern for text containing `part`, its own `%`, `_` and `\` taken literally. */
export function containing(part: string): string {
  return `%${part.trim().replaceAll(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** A LIKE pattern for an id that starts with what was typed (at least four hex digits); none when it cannot be one. */
export function idPrefixPattern(typed: string): string | undefined {
  const prefix = typed.trim().toLowerCase();
  return /^[0-9a-f-]{4,36}$/.test(prefix) ? `${prefix}%` : undefined;
}

/** A run id that starts with what was typed (`idPrefixPattern`); nothing when it cannot be an id. */
export function idStartsWith(column: PgColumn, typed: string): SQL | undefined {
  const pattern = idPrefixPattern(typed);
  return pattern ? sql`${column}::text like ${pattern}` : undefined;
}
