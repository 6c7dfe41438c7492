/**
 * A run as an OpenTelemetry trace file (OTLP/JSON, the format the OTLP file
 * exporter writes and Jaeger and Grafana Tempo open): the timeline's pieces
 * as spans of one trace whose id is the run id, as the live spans are
 * (lib/runtime/tracing.ts). Names and attributes follow the live spans'
 * (`run`, `step`, `wave`, `tool_call`); like them, the file carries names,
 * counts, statuses and codes, never arguments, results, reasons or prompts.
 */
import type { RunTimeline } from "./run-timeline";

type AttributeValue = { stringValue: string } | { intValue: string } | { boolValue: boolean };
interface OtlpAttribute {
  key: string;
  value: AttributeValue;
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** SPAN_KIND_INTERNAL. */
  kind: 1;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  events: Array<{ timeUnixNano: string; name: string; attributes: OtlpAttribute[] }>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: 0 | 1 | 2; message?: string };
}
export interface OtlpTraceFile {
  resourceSpans: Array<{
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }>;
  }>;
}

const attribute = (key: string, value: string | number | boolean): OtlpAttribute => ({
  key,
  value:
    typeof value === "string"
      ? { stringValue: value }
      : typeof value === "number"
        ? { intValue: String(Math.round(value)) }
        : { boolValue: value },
});

/** The trace of a run from its timeline; a run without events has no trace (null). */
export function buildRunTrace(runId: string, name: string, timeline: RunTimeline): OtlpTraceFile | null {
  if (timeline.origin === null) return null;
  const traceId = runId.replaceAll("-", "").toLowerCase().padEnd(32, "0").slice(0, 32);
  const originNs = BigInt(Date.parse(timeline.origin)) * 1_000_000n;
  const ns = (ms: number) => (originNs + BigInt(Math.round(ms * 1000)) * 1000n).toString();
  let next = 0;
  // Span ids only need to be unique in the trace and never zero: the run's id then a counter.
  const spanId = () => `${traceId.slice(0, 8)}${(++next).toString(16).padStart(8, "0")}`;
  const spans: OtlpSpan[] = [];
  const span = (
    spanName: string,
    parent: string | undefined,
    start: number,
    end: number,
    attributes: OtlpAttribute[],
    status: OtlpSpan["status"] = { code: 0 },
  ) => {
    const id = spanId();
    spans.push({
      traceId,
      spanId: id,
      ...(parent ? { parentSpanId: parent } : {}),
      name: spanName,
      kind: 1,
      startTimeUnixNano: ns(start),
      endTimeUnixNano: ns(Math.max(start, end)),
      attributes,
      events: [],
      status,
    });
    return spans[spans.length - 1] as OtlpSpan;
  };

  const run = span("run", undefined, 0, timeline.duration, [
    attribute("tool_playground.run.id", runId),
    attribute("tool_playground.run.name", name),
    attribute("tool_playground.run.live", timeline.isLive),
  ]);
  for (const marker of timeline.markers) {
    run.events.push({
      timeUnixNano: ns(marker.at),
      name: marker.kind,
      attributes: [
        attribute("tool_playground.marker", marker.label),
        ...(marker.stepIndex === null ? [] : [attribute("tool_playground.step.index", marker.stepIndex)]),
      ],
    });
  }
  for (const step of timeline.steps) {
    const stepSpan = span("step", run.spanId, step.start, step.end, [
      attribute("tool_playground.step.index", step.stepIndex),
    ]);
    for (const completion of timeline.completions.filter((c) => c.stepIndex === step.stepIndex)) {
      span("completion", stepSpan.spanId, completion.start, completion.end, [
        attribute("tool_playground.step.index", step.stepIndex),
        attribute("tool_playground.completion.synthesized", completion.synthesized),
        ...(completion.totalTokens === null
          ? []
          : [attribute("gen_ai.usage.total_tokens", completion.totalTokens)]),
      ]);
    }
    for (const wait of timeline.waits.filter((w) => w.stepIndex === step.stepIndex)) {
      span("approval_wait", stepSpan.spanId, wait.start, wait.end, [
        attribute("tool_playground.turn_digest", wait.turnDigest),
        attribute("tool_playground.wait.ended_by", wait.endedBy ?? "still waiting"),
      ]);
    }
    for (const group of timeline.groups.filter((g) => g.stepIndex === step.stepIndex)) {
      const end = Math.max(group.start, ...group.bars.map((bar) => bar.end));
      const groupSpan = span(group.kind, stepSpan.spanId, group.start, end, [
        attribute("tool_playground.wave.index", group.ordinal),
        attribute("tool_playground.wave.size", group.bars.length),
      ]);
      for (const bar of group.bars) {
        const failed = bar.outcome !== "ok" && bar.outcome !== "running";
        span(
          "tool_call",
          groupSpan.spanId,
          bar.start,
          bar.end,
          [
            attribute("tool_playground.tool.name", bar.name),
            attribute("tool_playground.call.batch_index", bar.batchIndex),
            attribute("tool_playground.call.outcome", bar.outcome),
            ...(bar.errorCode ? [attribute("error.type", bar.errorCode)] : []),
          ],
          failed
            ? { code: 2, message: bar.errorCode ?? bar.outcome }
            : bar.outcome === "ok"
              ? { code: 1 }
              : { code: 0 },
        );
      }
    }
  }
  return {
    resourceSpans: [
      {
        resource: { attributes: [attribute("service.name", "tool-playground")] },
        scopeSpans: [{ scope: { name: "tool-playground.run-export" }, spans }],
      },
    ],
  };
}
