import "server-only";
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { builtProcessPart, processPart, replaceProcessPart } from "@/lib/server/process-parts";

/**
 * The server's one logger: JSON lines (level, time, message, and the request
 * id, run id and user id where known) on stdout, for whatever collects logs.
 * `npm run dev` prints them readably instead (`PLAYGROUND_LOG_FORMAT=json`
 * keeps JSON there too). `LOG_LEVEL` sets the level (default info).
 * Credentials are redacted wherever they appear in what is logged, and a
 * failed query's parameters are cut from error messages, as are the values
 * Postgres quotes in a refused write's detail; callers
 * log ids and codes, never arguments, reasons or scenario contents.
 */
export function createLogger(destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: process.env.LOG_LEVEL || "info",
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    serializers: { err: serializeError },
    hooks: {
      // A message or a detail may quote a failed query (`String(error)`) or hold one's parameters, and
      // they hold what runs wrote: cut from every line, whoever logs it (better-auth's too).
      logMethod(args, method) {
        return method.apply(this, args.map(withoutParametersInArgument) as Parameters<typeof method>);
      },
    },
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
  if (destination) return pino(options, destination);
  const readable = process.env.NODE_ENV === "development" && process.env.PLAYGROUND_LOG_FORMAT !== "json";
  return readable
    ? pino(options, pretty({ colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" }))
    : pino(options);
}

/**
 * A failed query's message names its parameters (drizzle: "params: …"),
 * which are file contents, arguments, reasons: they are cut from logs.
 */
export function withoutQueryParameters(text: string): string {
  return text.replace(/\bparams: [\s\S]*?(?=\n\s+at |$)/g, "params: [not logged]");
}

/**
 * One argument of a log call with a failed query's parameters cut: a message's text, or a line's
 * fields at any depth. An error (as the first argument, or under `err`) is left to {@link serializeError},
 * which needs the error itself.
 */
function withoutParametersInArgument(argument: unknown): unknown {
  if (!argument || typeof argument !== "object") return withoutParameterFields(argument);
  if (argument instanceof Error) return argument;
  const { err, ...fields } = argument as Record<string, unknown>;
  const scrubbed = withoutParameterFields(fields) as Record<string, unknown>;
  return "err" in argument ? { ...scrubbed, err } : scrubbed;
}

/** Where errors keep a failed query's parameters as a field: drizzle's `params`, postgres.js's `parameters`. */
const PARAMETER_FIELDS = new Set(["params", "parameters"]);

function serializeError(error: unknown) {
  return withoutParameterFields(pino.stdSerializers.err(error as Error));
}

/**
 * A value to log (a serialized error: pino copies every enumerable field, nested errors too; or a
 * detail a library handed over) with a failed query's parameters cut: the fields that hold them,
 * and the "params: …" its texts quote.
 */
function withoutParameterFields(serialized: unknown, seen = new WeakSet<object>()): unknown {
  if (typeof serialized === "string") return withoutQueryParameters(serialized);
  if (!serialized || typeof serialized !== "object") return serialized;
  // What says how it is written as JSON (a date, a buffer) is written so, as pino would.
  if (typeof (serialized as { toJSON?: unknown }).toJSON === "function") return serialized;
  // A field may point back at what holds it; pino's own stringify says "[Circular]" for it.
  if (seen.has(serialized)) return "[Circular]";
  seen.add(serialized);
  if (Array.isArray(serialized)) return serialized.map((item) => withoutParameterFields(item, seen));
  const scrubbed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(serialized)) {
    if (PARAMETER_FIELDS.has(key)) scrubbed[key] = "[not logged]";
    else if (key === "detail" && typeof value === "string") scrubbed[key] = withoutQuotedValues(value);
    else scrubbed[key] = withoutParameterFields(value, seen);
  }
  return scrubbed;
}

/**
 * Postgres's detail of a refused write (postgres.js's and PGlite's `detail`) quotes what was written:
 * the whole failing row of a check or not-null violation, the values of a duplicate or missing
 * key. The constraint and the columns stay; everything after them is cut, whatever the values
 * hold (a parenthesis of their own included).
 */
function withoutQuotedValues(detail: string): string {
  const quoting =
    /^(Failing row contains |Partition key of the failing row contains \(.*?\) = |Key \(.*?\)=)/s.exec(
      detail,
    );
  if (!quoting) return withoutQueryParameters(detail);
  const outcome =
    / (already exists|is not present in table "[^"]*"|is still referenced from table "[^"]*")\.$/.exec(
      detail,
    );
  return `${quoting[0]}[not logged]${outcome?.[0] ?? "."}`;
}

/** The process's logger: every route bundle of this process logs through the same one (tests swap it). */
export function getLogger(): Logger {
  return processPart("logger", () => createLogger());
}

/**
 * For a command-line program, whose stdout is its output (a report, JSON, a token): the process's
 * logger writes its lines to stderr from now on, as the program's progress and errors go.
 */
export function logToStderr(): void {
  replaceProcessPart("logger", createLogger(process.stderr));
}

/** Uses `logger` from now on (tests capture lines); returns the way back. */
export function replaceLogger(logger: Logger): () => void {
  const previous = builtProcessPart<Logger>("logger");
  replaceProcessPart("logger", logger);
  return () => {
    replaceProcessPart("logger", previous);
  };
}

/** The runtime's and the services' `log(message, detail)` callback, as warnings. */
export function logWarning(message: string, detail?: Record<string, unknown>): void {
  getLogger().warn(detail ?? {}, message);
}
