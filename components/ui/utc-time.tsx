/** A stored time as people on any time zone can compare it: `2026-11-30 12:34:56 UTC`. */
export function UtcTime({ at }: { at: string }) {
  return <time dateTime={at}>{at.slice(0, 19).replace("T", " ")} UTC</time>;
}
