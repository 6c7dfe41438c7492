/**
 * Traces of runs, through the OpenTelemetry API: a no-op until the server
 * registers a tracer provider (see instrumentation.ts), so the runtime stays
 * free of any SDK. Spans carry names, counts, classes, statuses and codes;
 * never arguments, results, reasons or prompts.
 *
 * A run's trace id is its run id (a UUID is 128 bits, as a trace id is):
 * every instance that drives the run, at any time, adds its spans to the same
 * trace without storing a trace context. A run's spans and its decisions'
 * spans hang off one parent derived from the id, so the wait for a person
 * shows as a gap between two spans of one trace.
 */
import {
  type Attributes,
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  TraceFlags,
  trace,
} from "@opentelemetry/api";

export type { Span };

const tracer = () => trace.getTracer("tool-playground");

/** The context every span of a run descends from: a remote parent whose trace id is the run id. */
export function runTraceContext(runId: string): Context {
  const hex = runId.replaceAll("-", "").toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: hex,
    spanId: hex.slice(16),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}

/**
 * Runs `work` inside a span (the current one's child, or `parent`'s), ending
 * it when `work` settles; an error marks the span failed (with the error's
 * code, never its message) and is rethrown.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      const code =
        error && typeof error === "object" && "code" in error && typeof error.code === "string"
          ? error.code
          : "error";
      span.setStatus({ code: SpanStatusCode.ERROR, message: code });
      span.setAttribute("error.type", code);
      throw error;
    } finally {
      span.end();
    }
  });
}
