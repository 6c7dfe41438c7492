"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import type { RunView } from "@/lib/runtime/events/run-view";
import {
  buildRunTimeline,
  type RunTimeline as Timeline,
  type TimelineBar,
  timelineScale,
} from "@/lib/runtime/view/run-timeline";
import { formatSpan as formatDuration } from "../ui/format-duration";
import { downloadTimelinePng, downloadTimelineSvg } from "./export-timeline";
import { OUTCOME_LABELS, TimelineTable } from "./run-timeline-table";

const ROW = 20;
const ROW_GAP = 4;
const BAND_GAP = 10;
const LABEL_WIDTH = 64;
/** The picture's time axis before its box is measured (the server's render), and its least width. */
const DEFAULT_CHART_WIDTH = 860;
const MIN_CHART_WIDTH = 560;
const MAX_WAIT_PX = 140;

/** Something the pointer or the keyboard is on: its details are read out under the picture. */
type Focused = { key: string; text: string } | null;

/**
 * The run as one picture (lib/runtime/view/run-timeline.ts): steps as bands,
 * waves as lanes, each call a bar from dispatch to settle, the wait for a person
 * as a hatched gap ended by the decision. Live: open bars and waits grow each
 * second. Every bar is reachable by keyboard; the same story is a table below.
 */
export function RunTimeline({ runId, log }: { runId: string; log: RunView["log"] }) {
  // The server renders at the last event's time; the browser's clock takes over once mounted.
  const [now, setNow] = useState<number | null>(null);
  const timeline = useMemo(() => buildRunTimeline(log, now ?? log.at(-1)?.at ?? Date.now()), [log, now]);
  const isGrowing =
    timeline.isLive &&
    (timeline.waits.some((wait) => wait.open) ||
      timeline.groups.some((group) => group.bars.some((bar) => bar.open)));
  useEffect(() => {
    setNow(Date.now());
    if (!isGrowing) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [isGrowing]);
  const [focused, setFocused] = useState<Focused>(null);
  const svgRef = useRef<SVGSVGElement>(null);
  const boxRef = useRef<HTMLElement>(null);
  // The axis fills its box; on a phone it keeps a readable width and the box scrolls.
  const [chartWidth, setChartWidth] = useState(DEFAULT_CHART_WIDTH);
  const hasSteps = timeline.steps.length > 0;
  useEffect(() => {
    if (!hasSteps) return;
    const box = boxRef.current;
    if (!box) return;
    const fitToBox = () => setChartWidth(Math.max(MIN_CHART_WIDTH, box.clientWidth - LABEL_WIDTH - 8));
    fitToBox();
    const observer = new ResizeObserver(fitToBox);
    observer.observe(box);
    return () => observer.disconnect();
  }, [hasSteps]);
  // A live run is followed at its latest moment, at the right end of a box that scrolls.
  const isLive = timeline.isLive;
  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolled again when the picture widens, so the live edge stays in view
  useEffect(() => {
    const box = boxRef.current;
    if (box && isLive) box.scrollLeft = box.scrollWidth;
  }, [isLive, chartWidth]);
  const [exportError, setExportError] = useState<string | null>(null);

  if (!hasSteps) return null;
  const layout = layOut(timeline);
  const x = timelineScale(timeline, { width: chartWidth, maxWaitPx: MAX_WAIT_PX });
  const at = (ms: number) => LABEL_WIDTH + x(ms);
  const width = LABEL_WIDTH + chartWidth + 8;
  const focusable = (key: string, text: string) => ({
    tabIndex: 0,
    role: "img" as const,
    "aria-label": text,
    onFocus: () => setFocused({ key, text }),
    onMouseEnter: () => setFocused({ key, text }),
    "data-focused": focused?.key === key || undefined,
  });
  const exportAs = async (kind: "svg" | "png") => {
    setExportError(null);
    const svg = svgRef.current;
    if (!svg) return;
    try {
      if (kind === "svg") downloadTimelineSvg(svg, `run-${runId}-timeline.svg`);
      else await downloadTimelinePng(svg, `run-${runId}-timeline.png`);
    } catch (error) {
      setExportError(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <section className="panel run-timeline" aria-labelledby="run-timeline-heading">
      <div className="run-timeline-head">
        <h2 id="run-timeline-heading">Timeline</h2>
        <p className="muted">
          {formatDuration(timeline.duration)}
          {timeline.isLive ? " so far" : ""} · waits for a person are drawn at most {MAX_WAIT_PX} px wide
        </p>
        <span className="run-timeline-exports">
          <button type="button" className="secondary" onClick={() => exportAs("svg")}>
            Download SVG
          </button>
          <button type="button" className="secondary" onClick={() => exportAs("png")}>
            Download PNG
          </button>
          <a href={`/api/runs/${runId}/trace`} download={`run-${runId}-trace.json`}>
            Download trace (OpenTelemetry)
          </a>
        </span>
      </div>
      {exportError && (
        <p className="alert" role="alert">
          <strong>Could not export the picture.</strong> {exportError}
        </p>
      )}
      <section
        ref={boxRef}
        className="run-timeline-scroll"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls sideways must be reachable by keyboard to be scrolled (axe: scrollable-region-focusable)
        tabIndex={0}
        aria-label="Timeline picture, scrolls sideways"
      >
        <svg
          ref={svgRef}
          xmlns="http://www.w3.org/2000/svg"
          width={width}
          height={layout.height}
          viewBox={`0 0 ${width} ${layout.height}`}
          aria-label={`Timeline of run ${runId}`}
          className="run-timeline-svg"
        >
          <defs>
            <pattern
              id="tl-hatch"
              width="6"
              height="6"
              patternUnits="userSpaceOnUse"
              patternTransform="rotate(45)"
            >
              <rect width="6" height="6" className="tl-wait-fill" />
              <line x1="0" y1="0" x2="0" y2="6" className="tl-wait-stroke" strokeWidth="2" />
            </pattern>
          </defs>
          {timeline.steps.map((step) => {
            const band = layout.bands.get(step.stepIndex);
            if (!band) return null;
            return (
              <g key={step.stepIndex} data-step={step.stepIndex}>
                <rect
                  x={0}
                  y={band.top - BAND_GAP / 2}
                  width={width}
                  height={band.height + BAND_GAP}
                  className="tl-band"
                />
                <text x={4} y={band.top + ROW - 6} className="tl-label">
                  Step {step.stepIndex + 1}
                </text>
              </g>
            );
          })}
          {timeline.completions.map((completion) => {
            const band = layout.bands.get(completion.stepIndex);
            if (!band) return null;
            const text = `Step ${completion.stepIndex + 1}: model completion, ${formatDuration(completion.end - completion.start)}${
              completion.totalTokens === null ? "" : `, ${completion.totalTokens} tokens`
            }${completion.synthesized ? " (scripted)" : ""}`;
            const key = `completion-${completion.stepIndex}`;
            return (
              <g key={key} {...focusable(key, text)} className="tl-item">
                <title>{text}</title>
                <rect
                  x={at(completion.start)}
                  y={band.top + 3}
                  width={Math.max(2, at(completion.end) - at(completion.start))}
                  height={ROW - 6}
                  rx={3}
                  className="tl-completion"
                />
              </g>
            );
          })}
          {timeline.waits.map((wait, index) => {
            const band = layout.bands.get(wait.stepIndex);
            if (!band) return null;
            const length = formatDuration(wait.end - wait.start);
            const text = wait.open
              ? `Step ${wait.stepIndex + 1}: waiting for a person, ${length} so far`
              : `Step ${wait.stepIndex + 1}: waited ${length} for a person, ended by ${wait.endedBy ?? "the run"}`;
            const key = `wait-${index}`;
            const left = at(wait.start);
            const span = Math.max(2, at(wait.end) - left);
            return (
              <g
                key={key}
                {...focusable(key, text)}
                className="tl-item"
                data-wait={wait.open ? "open" : "closed"}
              >
                <title>{text}</title>
                <rect
                  x={left}
                  y={band.top + 2}
                  width={span}
                  height={ROW - 4}
                  rx={3}
                  fill="url(#tl-hatch)"
                  className="tl-wait"
                />
                {span > 60 && (
                  <text
                    x={left + span / 2}
                    y={band.top + ROW - 6}
                    textAnchor="middle"
                    className="tl-wait-label"
                  >
                    {length}
                  </text>
                )}
              </g>
            );
          })}
          {timeline.groups.map((group) =>
            group.bars.map((bar) => {
              const band = layout.bands.get(bar.stepIndex);
              if (!band) return null;
              const text = describeBar(bar, group.kind, group.ordinal);
              const key = `bar-${bar.stepIndex}-${bar.batchIndex}-${bar.start}`;
              const y = band.top + (bar.lane + 1) * (ROW + ROW_GAP);
              return (
                <g
                  key={key}
                  {...focusable(key, text)}
                  className="tl-item"
                  data-outcome={bar.outcome}
                  data-group={group.kind}
                >
                  <title>{text}</title>
                  <rect
                    x={at(bar.start)}
                    y={y}
                    width={Math.max(3, at(bar.end) - at(bar.start))}
                    height={ROW}
                    rx={3}
                    className={`tl-bar tl-${bar.outcome}`}
                  />
                </g>
              );
            }),
          )}
          {timeline.markers.map((marker, index) => {
            const band = marker.stepIndex === null ? null : layout.bands.get(marker.stepIndex);
            const top = band ? band.top : 0;
            const bottom = band ? band.top + band.height : layout.height;
            const text = `${marker.kind === "finished" ? "Run ended" : marker.label} at ${formatDuration(marker.at)}${
              marker.kind === "finished" ? `: ${marker.label}` : ""
            }`;
            const key = `marker-${index}`;
            const mx = at(marker.at);
            return (
              <g key={key} {...focusable(key, text)} className={`tl-item tl-marker tl-marker-${marker.kind}`}>
                <title>{text}</title>
                <line x1={mx} x2={mx} y1={top} y2={bottom} strokeWidth={2} />
                <path d={`M ${mx} ${top} l 6 6 l -6 6 l -6 -6 z`} />
              </g>
            );
          })}
          {timeline.cut.length > 0 &&
            groupCut(timeline).map(({ stepIndex, at: cutAt, calls }) => {
              const band = layout.bands.get(stepIndex);
              if (!band) return null;
              const text = `Step ${stepIndex + 1}: ${calls.length} ${calls.length === 1 ? "call" : "calls"} never ran (${[
                ...new Set(calls.map((call) => call.status)),
              ].join(", ")}) at ${formatDuration(cutAt)}`;
              const key = `cut-${stepIndex}-${cutAt}`;
              return (
                <g key={key} {...focusable(key, text)} className="tl-item tl-cut">
                  <title>{text}</title>
                  <text x={at(cutAt) + 4} y={band.top + ROW - 6} className="tl-cut-label">
                    ✕ {calls.length}
                  </text>
                </g>
              );
            })}
          <line
            x1={LABEL_WIDTH}
            x2={LABEL_WIDTH + chartWidth}
            y1={layout.height - 14}
            y2={layout.height - 14}
            className="tl-axis"
          />
          <text x={LABEL_WIDTH} y={layout.height - 2} className="tl-tick">
            0
          </text>
          <text x={LABEL_WIDTH + chartWidth} y={layout.height - 2} textAnchor="end" className="tl-tick">
            {formatDuration(timeline.duration)}
          </text>
        </svg>
      </section>
      <p className="run-timeline-focus muted" role="status" aria-label="Timeline details">
        {focused ? focused.text : "Point at or tab to a bar for its details."}
      </p>
      <ul className="run-timeline-legend" aria-label="Legend">
        {(["ok", "error", "cancelled", "interrupted", "expired", "running"] as const).map((outcome) => (
          <li key={outcome}>
            <span className={`tl-swatch tl-${outcome}`} aria-hidden="true" /> {OUTCOME_LABELS[outcome]}
          </li>
        ))}
        <li>
          <span className="tl-swatch tl-completion" aria-hidden="true" /> model completion
        </li>
        <li>
          <span className="tl-swatch tl-wait-swatch" aria-hidden="true" /> waiting for a person
        </li>
      </ul>
      <TimelineTable timeline={timeline} />
    </section>
  );
}

function describeBar(bar: TimelineBar, kind: "wave" | "barrier", ordinal: number) {
  const where = kind === "wave" ? `wave ${ordinal + 1}, lane ${bar.lane + 1}` : "barrier, after its approval";
  const how = bar.open
    ? "running"
    : OUTCOME_LABELS[bar.outcome] + (bar.errorCode ? ` (${bar.errorCode})` : "");
  return `Step ${bar.stepIndex + 1}: ${bar.name} #${bar.batchIndex}, ${where}: ${how}, ${formatDuration(bar.end - bar.start)}, from ${formatDuration(bar.start)}`;
}

/** Each step's band: a header row (completion, wait, markers) and one row per lane. */
function layOut(timeline: Timeline) {
  const bands = new Map<number, { top: number; height: number }>();
  let top = BAND_GAP / 2;
  for (const step of timeline.steps) {
    const height = ROW + step.lanes * (ROW + ROW_GAP);
    bands.set(step.stepIndex, { top, height });
    top += height + BAND_GAP;
  }
  return { bands, height: top + 20 };
}

function groupCut(timeline: Timeline) {
  const groups = new Map<string, { stepIndex: number; at: number; calls: Timeline["cut"] }>();
  for (const call of timeline.cut) {
    const key = `${call.stepIndex}:${call.at}`;
    const group = groups.get(key) ?? { stepIndex: call.stepIndex, at: call.at, calls: [] };
    group.calls.push(call);
    groups.set(key, group);
  }
  return [...groups.values()];
}
