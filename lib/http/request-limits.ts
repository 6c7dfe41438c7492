import "server-only";

/**
 * The one size limit of a request body, for the HTTP API and the server
 * actions alike: 2 MiB of JSON (a scenario, a decision). Larger is refused
 * with 413 before anything is parsed. Next's own action limit is set above
 * it (next.config.mjs), so this one answers first, with the error body.
 */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** UTF-8 length of a string, without encoding it. */
export function measureUtf8Bytes(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}
