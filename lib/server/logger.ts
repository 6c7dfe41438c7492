import "server-only";
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";

/**
 * The server's one logger: JSON lines (level, time, message, and the request
 * id, run id and user id where known) on stdout, for whatever collects logs.
 * `npm run dev` prints them readably instead (`PLAYGROUND_LOG_FORMAT=json`
 * keeps JSON there too). `LOG_LEVEL` sets the level (default info).
 * Credentials are redacted wherever they appear in what is logged; callers
 * log ids and codes, never arguments, reasons or scenario contents.
 */
function createLogger(): Logger {
  const options: pino.LoggerOptions = {
    level: process.env.LOG_LEVEL || "info",
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: {
      paths: [
        "authorization",
        "cookie",
        "token",
        "password",
        "apiKey",
        "*.authorization",
        "*.cookie",
        "*.token",
        "*.password",
        "*.apiKey",
        "headers.authorization",
        "headers.cookie",
      ],
      censor: "[redacted]",
    },
  };
  const readable = process.env.NODE_ENV === "development" && process.env.PLAYGROUND_LOG_FORMAT !== "json";
  return readable
    ? pino(options, pretty({ colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" }))
    : pino(options);
}

// On globalThis: every route bundle of this process logs through the same logger (tests swap it).
const globalForLogger = globalThis as typeof globalThis & { toolPlaygroundLogger?: Logger };

export function getLogger(): Logger {
  globalForLogger.toolPlaygroundLogger ??= createLogger();
  return globalForLogger.toolPlaygroundLogger;
}

/** Uses `logger` from now on (tests capture lines); returns the way back. */
export function replaceLogger(logger: Logger): () => void {
  const previous = globalForLogger.toolPlaygroundLogger;
  globalForLogger.toolPlaygroundLogger = logger;
  return () => {
    globalForLogger.toolPlaygroundLogger = previous;
  };
}

/** The runtime's and the services' `log(message, detail)` callback, as warnings. */
export function logWarning(message: string, detail?: Record<string, unknown>): void {
  getLogger().warn(detail ?? {}, message);
}
