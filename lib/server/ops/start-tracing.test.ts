import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { context, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildScenario, openMemoryHarness } from "@/lib/runtime/testing/scenario-harness";
import { startTracing } from "./start-tracing";

/** A stand-in OpenTelemetry collector: keeps what is POSTed to /v1/traces. */
let collector: Server;
const received: Array<{ path: string; body: string }> = [];
beforeAll(async () => {
  collector = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      received.push({ path: request.url ?? "", body });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  trace.disable();
  context.disable();
  vi.unstubAllEnvs();
  await new Promise((resolve) => collector.close(resolve));
});

describe("startTracing", () => {
  it("does nothing without an OTLP endpoint", () => {
    expect(startTracing({})).toBeNull();
  });

  it("exports a run's spans to the configured collector, in the trace named by the run id", async () => {
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
    const provider = startTracing({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_SERVICE_NAME: "playground-test",
    });
    expect(provider).not.toBeNull();
    const harness = openMemoryHarness();
    try {
      const { runId, settled } = await harness.host.startRun(
        buildScenario({
          name: "exported",
          workspace: { "a.txt": "A" },
          model: {
            kind: "scripted",
            turns: [
              { calls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
              { calls: [{ name: "finish", arguments: { summary: "done" } }] },
            ],
          },
        }),
      );
      expect(await settled).toBe("COMPLETED");
      await provider?.forceFlush();
      const exported = received
        .filter((request) => request.path === "/v1/traces")
        .map((request) => request.body);
      expect(exported.length).toBeGreaterThan(0);
      const all = exported.join("\n");
      expect(all).toContain("playground-test");
      const spans = exported.flatMap((body) =>
        (
          JSON.parse(body) as {
            resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; traceId: string }> }> }>;
          }
        ).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
      );
      const runTrace = spans.filter((span) => span.traceId === runId.replaceAll("-", ""));
      expect(runTrace.map((span) => span.name)).toEqual(
        expect.arrayContaining(["run", "planning", "chat scripted", "step", "wave", "tool_call"]),
      );
    } finally {
      harness.close();
      await provider?.shutdown();
    }
  });
});
