/**
 * A run's story as geometry: the pure function behind the run page's
 * timeline, its SVG/PNG export and its trace file. Time runs from the run's
 * first event (0 ms); each step is a band; each wave (docs/planning-rules.md)
 * is a group of lanes whose calls are bars from dispatch to settle; a barrier
 * (docs/decisions.md) runs as a group of its own after the wait for a person,
 * which is a gap ended by the decision's marker. Calls that never ran (the
 * calls a denial, a cancel or an expiry cut off) have no bar: they are listed
 * with the moment they were cut off.
 *
 * Built from the event log alone (the same entries the page's event log shows),
 * so a page that watched every event and one rendered from a snapshot draw the
 * same picture. `now` keeps what is still open (a running call, a wait) growing.
 */
import type { StoredRunEvent } from "../events/run-events";
import type { CallStatus } from "../run/run-types";

/** One entry of a run's event log, as the run view keeps it. */
export type TimelineLogEntry = Pick<StoredRunEvent, "seq" | "type" | "at" | "payload">;

/** How a bar ended: a call's status, with the errors people tell apart named on their own. */
export type BarOutcome = "running" | "ok" | "error" | "cancelled" | "interrupted" | "expired";

export interface TimelineBar {
  stepIndex: number;
  batchIndex: number;
  name: string;
  /** The lane inside its group (its place in the wave); lanes of a step share rows. */
  lane: number;
  /** Milliseconds since the run started. */
  start: number;
  end: number;
  /** Still running: `end` is `now`. */
  open: boolean;
  outcome: BarOutcome;
  /** The error's code, when it ended in one. */
  errorCode: string | null;
}

export interface TimelineGroup {
  /** A wave of parallel calls, or a barrier: one approved gate running on its own. */
  kind: "wave" | "barrier";
  stepIndex: number;
  /** Its place among the step's groups, from 0. */
  ordinal: number;
  start: number;
  bars: TimelineBar[];
}

export interface TimelineCompletion {
  stepIndex: number;
  start: number;
  end: number;
  totalTokens: number | null;
  /** The step was not a model's answer (a scripted turn, a recovered step). */
  synthesized: boolean;
}

export interface TimelineWait {
  stepIndex: number;
  turnDigest: string;
  start: number;
  end: number;
  /** Nobody has decided yet: `end` is `now`. */
  open: boolean;
  endedBy: "decision" | "cancel" | "expiry" | "finished" | null;
}

export interface TimelineMarker {
  kind: "decision" | "expiry" | "voided" | "escalated" | "recovered" | "finished";
  at: number;
  stepIndex: number | null;
  /** Short, for the picture ("approved by Ada"). */
  label: string;
}

export interface CutCall {
  stepIndex: number;
  batchIndex: number;
  name: string;
  status: CallStatus;
  at: number;
}

export interface TimelineStep {
  stepIndex: number;
  start: number;
  end: number;
  open: boolean;
  /** Lanes its widest group needs. */
  lanes: number;
}

export interface RunTimeline {
  /** ISO time of the run's first event: the origin of every offset. */
  origin: string | null;
  /** The run's length so far, in milliseconds. */
  duration: number;
  isLive: boolean;
  steps: TimelineStep[];
  groups: TimelineGroup[];
  completions: TimelineCompletion[];
  waits: TimelineWait[];
  markers: TimelineMarker[];
  cut: CutCall[];
}

interface CallInfo {
  name: string;
}

/** The geometry of a run's timeline from its event log, in seq order. `now` (ISO or ms) ends what is still open. */
export function buildRunTimeline(
  log: readonly TimelineLogEntry[],
  now: number | string = Date.now(),
): RunTimeline {
  const first = log[0];
  if (!first) {
    return {
      origin: null,
      duration: 0,
      isLive: true,
      steps: [],
      groups: [],
      completions: [],
      waits: [],
      markers: [],
      cut: [],
    };
  }
  const origin = Date.parse(first.at);
  // Clock steps between instances never make time run backwards in the picture.
  let clock = 0;
  const offset = (at: string) => {
    clock = Math.max(clock, Date.parse(at) - origin);
    return clock;
  };

  const steps = new Map<number, TimelineStep>();
  const calls = new Map<string, CallInfo>();
  const groups: TimelineGroup[] = [];
  const completions: TimelineCompletion[] = [];
  const waits: TimelineWait[] = [];
  const markers: TimelineMarker[] = [];
  const cut: CutCall[] = [];
  const openBars = new Map<string, TimelineBar>();
  /** The wave whose calls are starting: batchIndex → lane. */
  let wave: { group: TimelineGroup; lanes: Map<number, number> } | null = null;
  let openWait: TimelineWait | null = null;
  let finishedAt: number | null = null;

  const key = (stepIndex: number, batchIndex: number) => `${stepIndex}:${batchIndex}`;
  const touchStep = (stepIndex: number, at: number) => {
    const step = steps.get(stepIndex);
    if (step) step.end = Math.max(step.end, at);
  };
  const closeWait = (at: number, endedBy: TimelineWait["endedBy"]) => {
    if (!openWait) return;
    openWait.end = at;
    openWait.open = false;
    openWait.endedBy = endedBy;
    openWait = null;
  };
  const closeOpenBars = (at: number, outcome: BarOutcome) => {
    for (const bar of openBars.values()) {
      bar.end = at;
      bar.open = false;
      bar.outcome = outcome;
    }
    openBars.clear();
  };

  for (const entry of log) {
    const event = { type: entry.type, payload: entry.payload } as StoredRunEvent;
    const at = offset(entry.at);
    switch (event.type) {
      case "step_planned": {
        const { stepIndex, completion, calls: planned } = event.payload;
        const start = completion ? Math.max(0, at - completion.latencyMs) : at;
        steps.set(stepIndex, { stepIndex, start, end: at, open: true, lanes: 0 });
        for (const call of planned) calls.set(key(stepIndex, call.batchIndex), { name: call.name });
        if (completion) {
          completions.push({
            stepIndex,
            start,
            end: at,
            totalTokens: completion.usage?.totalTokens ?? null,
            synthesized: completion.synthesized,
          });
        }
        wave = null;
        break;
      }
      case "wave_started": {
        const { stepIndex, batchIndexes } = event.payload;
        const group: TimelineGroup = {
          kind: "wave",
          stepIndex,
          ordinal: ordinalIn(groups, stepIndex),
          start: at,
          bars: [],
        };
        groups.push(group);
        wave = { group, lanes: new Map(batchIndexes.map((batchIndex, lane) => [batchIndex, lane])) };
        touchStep(stepIndex, at);
        break;
      }
      case "call_started": {
        const { stepIndex, batchIndex } = event.payload;
        let lane = wave?.group.stepIndex === stepIndex ? wave.lanes.get(batchIndex) : undefined;
        if (wave === null || lane === undefined) {
          // A call outside the wave being dispatched: an approved gate, run on its own.
          const group: TimelineGroup = {
            kind: "barrier",
            stepIndex,
            ordinal: ordinalIn(groups, stepIndex),
            start: at,
            bars: [],
          };
          groups.push(group);
          wave = { group, lanes: new Map([[batchIndex, 0]]) };
          lane = 0;
        }
        const bar: TimelineBar = {
          stepIndex,
          batchIndex,
          name: calls.get(key(stepIndex, batchIndex))?.name ?? `call ${batchIndex}`,
          lane,
          start: at,
          end: at,
          open: true,
          outcome: "running",
          errorCode: null,
        };
        // Started again (a worker that took the run over re-sent it): the first attempt ends here.
        closeBar(openBars, key(stepIndex, batchIndex), at, "interrupted");
        openBars.set(key(stepIndex, batchIndex), bar);
        wave.group.bars.push(bar);
        const step = steps.get(stepIndex);
        if (step) step.lanes = Math.max(step.lanes, lane + 1);
        touchStep(stepIndex, at);
        break;
      }
      case "call_settled": {
        const { stepIndex, batchIndex, status, error } = event.payload;
        const bar = openBars.get(key(stepIndex, batchIndex));
        if (bar) {
          openBars.delete(key(stepIndex, batchIndex));
          bar.end = at;
          bar.open = false;
          bar.outcome = outcomeOf(status, error?.code ?? null);
          bar.errorCode = error?.code ?? null;
        } else {
          // Settled without having started: an expired barrier, a call cancelled before it was sent.
          cut.push({
            stepIndex,
            batchIndex,
            name: calls.get(key(stepIndex, batchIndex))?.name ?? "",
            status,
            at,
          });
        }
        touchStep(stepIndex, at);
        break;
      }
      case "calls_invalidated": {
        const { stepIndex } = event.payload;
        for (const call of event.payload.calls) {
          cut.push({
            stepIndex,
            batchIndex: call.batchIndex,
            name: calls.get(key(stepIndex, call.batchIndex))?.name ?? "",
            status: call.status,
            at,
          });
        }
        touchStep(stepIndex, at);
        break;
      }
      case "step_finished": {
        const step = steps.get(event.payload.stepIndex);
        if (step) {
          step.end = Math.max(step.end, at);
          step.open = false;
        }
        wave = null;
        break;
      }
      case "awaiting_approval":
      case "run_released": {
        const { stepIndex, turnDigest } = event.payload;
        closeWait(at, null);
        openWait = { stepIndex, turnDigest, start: at, end: at, open: true, endedBy: null };
        waits.push(openWait);
        wave = null;
        touchStep(stepIndex, at);
        break;
      }
      case "run_claimed": {
        const purpose = event.payload.purpose;
        closeWait(at, purpose === "decision" ? "decision" : purpose === "cancel" ? "cancel" : "expiry");
        touchStep(event.payload.stepIndex, at);
        break;
      }
      case "approval_decided": {
        const { stepIndex, approve, actor, scope, outcome } = event.payload;
        const verb = approve ? (scope === "turn" ? "approved the turn" : "approved") : "denied";
        markers.push({
          kind: "decision",
          at,
          stepIndex,
          label: `${actor} ${verb}${outcome === "denied" && approve ? " (not run)" : ""}`,
        });
        touchStep(stepIndex, at);
        break;
      }
      case "approval_expired":
        closeWait(at, "expiry");
        markers.push({
          kind: "expiry",
          at,
          stepIndex: event.payload.stepIndex,
          label: "nobody decided in time",
        });
        break;
      case "approval_escalated": {
        const { step, steps, channel } = event.payload;
        markers.push({
          kind: "escalated",
          at,
          stepIndex: event.payload.stepIndex,
          label: `escalated (step ${step} of ${steps}) through ${channel}`,
        });
        break;
      }
      case "approval_voided":
        markers.push({
          kind: "voided",
          at,
          stepIndex: event.payload.stepIndex,
          label: `approval voided: ${event.payload.toolName} changed`,
        });
        break;
      case "run_recovered":
        // The lost worker's calls never reported: their bars end where the run was taken over.
        closeOpenBars(at, "interrupted");
        markers.push({
          kind: "recovered",
          at,
          stepIndex: event.payload.from.stepIndex,
          label: `recovered by ${event.payload.by}`,
        });
        wave = null;
        break;
      case "run_finished": {
        finishedAt = at;
        closeOpenBars(at, "interrupted");
        closeWait(at, "finished");
        for (const step of steps.values()) step.open = false;
        markers.push({ kind: "finished", at, stepIndex: null, label: event.payload.status.toLowerCase() });
        break;
      }
      default:
        break;
    }
  }

  const isLive = finishedAt === null;
  const end = isLive
    ? Math.max(clock, (typeof now === "number" ? now : Date.parse(now)) - origin)
    : (finishedAt ?? clock);
  if (isLive) {
    for (const bar of openBars.values()) bar.end = end;
    for (const wait of waits) if (wait.open) wait.end = end;
    for (const step of steps.values()) if (step.open) step.end = Math.max(step.end, end);
  }
  return {
    origin: first.at,
    duration: end,
    isLive,
    steps: [...steps.values()].sort((a, b) => a.stepIndex - b.stepIndex),
    groups,
    completions,
    waits,
    markers,
    cut,
  };
}

function ordinalIn(groups: readonly TimelineGroup[], stepIndex: number) {
  return groups.filter((group) => group.stepIndex === stepIndex).length;
}

function closeBar(open: Map<string, TimelineBar>, key: string, at: number, outcome: BarOutcome) {
  const bar = open.get(key);
  if (!bar) return;
  bar.end = at;
  bar.open = false;
  bar.outcome = outcome;
  open.delete(key);
}

function outcomeOf(status: CallStatus, errorCode: string | null): BarOutcome {
  if (status === "ok") return "ok";
  if (status === "expired") return "expired";
  if (errorCode === "cancelled") return "cancelled";
  if (errorCode === "interrupted") return "interrupted";
  return "error";
}

/**
 * Maps run time (ms) to x (px) across `width`: working time at one scale, and
 * each wait for a person at most `maxWaitPx` wide, since a wait of minutes
 * would otherwise squash every call of the run into a line.
 */
export function timelineScale(
  timeline: Pick<RunTimeline, "duration" | "waits">,
  { width, maxWaitPx }: { width: number; maxWaitPx: number },
): (ms: number) => number {
  const waits = timeline.waits
    .map((wait) => ({ start: wait.start, end: Math.min(wait.end, timeline.duration) }))
    .filter((wait) => wait.end > wait.start)
    .sort((a, b) => a.start - b.start);
  const waited = waits.reduce((sum, wait) => sum + (wait.end - wait.start), 0);
  const working = timeline.duration - waited;
  if (timeline.duration <= 0) return () => 0;
  if (working <= 0) return (ms) => (Math.min(Math.max(ms, 0), timeline.duration) / timeline.duration) * width;
  // Waits first take their longest width; a short wait is then drawn at the working scale.
  let pxPerMs = Math.max(0, width - waits.length * maxWaitPx) / working;
  const waitPx = waits.map((wait) => Math.min(maxWaitPx, (wait.end - wait.start) * pxPerMs));
  pxPerMs = Math.max(0, width - waitPx.reduce((sum, px) => sum + px, 0)) / working;
  return (ms) => {
    const t = Math.min(Math.max(ms, 0), timeline.duration);
    let x = 0;
    let from = 0;
    for (const [i, wait] of waits.entries()) {
      if (t <= wait.start) break;
      x += (wait.start - from) * pxPerMs;
      const inside = Math.min(t, wait.end) - wait.start;
      x += (inside / (wait.end - wait.start)) * (waitPx[i] ?? 0);
      from = wait.end;
      if (t <= wait.end) return x;
    }
    return x + (t - from) * pxPerMs;
  };
}
