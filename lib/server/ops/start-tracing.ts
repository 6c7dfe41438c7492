import "server-only";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

/**
 * Exports this process's traces over OTLP (HTTP) when an endpoint is
 * configured (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, with the exporter's other standard
 * variables); otherwise does nothing and every span stays a no-op. Returns the
 * provider, whose `forceFlush` and `shutdown` send what is buffered.
 */
export function startTracing(env: Record<string, string | undefined> = process.env): TracerProvider | null {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return null;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": env.OTEL_SERVICE_NAME || "tool-playground",
      ...(env.PLAYGROUND_INSTANCE_ID ? { "service.instance.id": env.PLAYGROUND_INSTANCE_ID } : {}),
    }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  trace.setGlobalTracerProvider(provider);
  return provider;
}
