import "server-only";
import { stringify } from "csv-stringify/sync";

/**
 * Rows as CSV with a header row, for a spreadsheet. A cell that starts like a spreadsheet formula
 * (`=`, `+`, `-`, `@`, tab, carriage return) gets a leading `'`: a reason or a run name typed by
 * someone is shown as text, never run as a formula when the file is opened.
 */
export function toSafeCsv<Row extends object>(
  rows: Row[],
  columns: ReadonlyArray<keyof Row & string>,
): string {
  return stringify(rows, {
    header: true,
    columns: [...columns],
    cast: {
      string: (value) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value),
      boolean: (value) => String(value),
    },
  });
}
