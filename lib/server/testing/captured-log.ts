import { Writable } from "node:stream";
import { createLogger, replaceLogger } from "@/lib/server/ops/logger";

/** One JSON line of the server's log, parsed. */
export type LogLine = Record<string, unknown> & { level: string; msg: string };

export interface CapturedLog {
  /** Every line logged since the capture began, in order; empty it with `lines.length = 0`. */
  readonly lines: LogLine[];
  /** Gives the process back the logger it had before. */
  restore(): void;
}

/**
 * Points the process's logger (the one every route and service logs through) at an array, with the
 * server's own serializers and redaction, so a test reads exactly the lines the server would write.
 * `level` defaults to the logger's own (`LOG_LEVEL`, which the suites set to warn).
 */
export function captureLog(level?: string): CapturedLog {
  const lines: LogLine[] = [];
  const logger = createLogger(
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  if (level) logger.level = level;
  return { lines, restore: replaceLogger(logger) };
}
