import type { RowCursor } from "@/lib/wire/list-filters";

/** The opaque cursor of the page after a row. */
export function encodePageCursor(cursor: RowCursor): string {
  return Buffer.from(JSON.stringify([cursor.time, cursor.id])).toString("base64url");
}

/** A cursor back, or null when it is not one this server wrote. */
export function decodePageCursor(text: string): RowCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [time, id] = value;
    if (time !== null && (typeof time !== "string" || !/^[0-9 :.+-]{10,40}$/.test(time))) return null;
    if (typeof id !== "string" || !/^[0-9a-f-]{36}$/.test(id)) return null;
    return { time, id };
  } catch {
    return null;
  }
}
