/**
 * What the live run page shows, as a fold of the run's persisted events.
 *
 * The server folds the events it has stored to render the page; the browser
 * folds the same events as they stream in. One function, so a page built from
 * a snapshot and a page that watched every event agree. It is a projection of
 * what the runtime already decided, never a second copy of a rule. Pure data,
 * importable on both sides.
 */

import type {
  CallStatus,
  Limits,
  Plan,
  ResourceClass,
  RunError,
  RunStatus,
  StepMetrics,
} from "@/lib/runtime";

/** A persisted run event as the database and the SSE stream carry it. */
export interface RunEventRecord {
  seq: number;
  type: string;
  payload: unknown;
  /** ISO time the event was committed. */
  at: string;
}

export interface CallView {
  batchIndex: number;
  id: string;
  name: string;
  /** Raw arguments exactly as the model emitted them. */
  arguments: string;
  resourceClass: ResourceClass | null;
  isGated: boolean;
  status: CallStatus;
  result: unknown;
  error: RunError | null;
}

export interface StepView {
  index: number;
  text: string | null;
  plan: Plan;
  metrics: StepMetrics;
  calls: CallView[];
  isFinished: boolean;
}

export interface PendingTurnView {
  stepIndex: number;
  turnDigest: string;
  calls: Array<{ id: string; name: string; arguments: string; batchIndex: number }>;
}

export interface DecisionView {
  seq: number;
  stepIndex: number;
  approve: boolean;
  actor: string;
  reason: string | null;
  outcome: string;
  audited: boolean;
  /** ISO time the decision was recorded. */
  at: string;
}

export interface RunView {
  runId: string;
  name: string;
  status: RunStatus;
  limits: Limits | null;
  error: RunError | null;
  /** The seq of the last event folded in; the stream resumes after it. */
  lastSeq: number;
  steps: StepView[];
  /** The turn waiting for a decision, while the run waits. */
  pending: PendingTurnView | null;
  decisions: DecisionView[];
  /** Who started the run, when a signed-in person did. */
  startedBy: string | null;
  /** Every event folded in, in seq order: the page's event log. */
  log: Array<{ seq: number; type: string; at: string }>;
}

export function emptyRunView(runId: string): RunView {
  return {
    runId,
    name: "",
    status: "RUNNING",
    limits: null,
    error: null,
    lastSeq: 0,
    steps: [],
    pending: null,
    decisions: [],
    startedBy: null,
    log: [],
  };
}

/** Where an event sits relative to a view: already folded, the next one, or after a gap. */
export function classifyEvent(view: RunView, seq: number): "duplicate" | "next" | "gap" {
  if (seq <= view.lastSeq) return "duplicate";
  return seq === view.lastSeq + 1 ? "next" : "gap";
}

/**
 * Folds one event into a view. Events at or below `lastSeq` are ignored, so a
 * replay that overlaps what was already seen changes nothing. The caller
 * checks {@link classifyEvent} for gaps; folding across a gap would show a
 * state that never existed.
 */
export function applyRunEvent(view: RunView, event: RunEventRecord): RunView {
  if (event.seq <= view.lastSeq) return view;
  // A waiting run emits nothing until a decision or cancellation claims it, so
  // any later event means the pending turn was taken up.
  const current: RunView =
    view.status === "WAITING_FOR_APPROVAL" && event.type !== "awaiting_approval"
      ? { ...view, status: "RUNNING", pending: null }
      : view;
  return {
    ...applyPayload(current, event),
    lastSeq: event.seq,
    log: [...view.log, { seq: event.seq, type: event.type, at: event.at }],
  };
}

export function foldRunEvents(runId: string, events: readonly RunEventRecord[]): RunView {
  return events.reduce(applyRunEvent, emptyRunView(runId));
}

// The payloads below are written by db/repositories and the coordinator; their
// shapes are the events' contract with this projection.
type Payload = Record<string, unknown>;

function applyPayload(view: RunView, event: RunEventRecord): RunView {
  const payload = (event.payload ?? {}) as Payload;
  switch (event.type) {
    case "run_started":
      return {
        ...view,
        name: String(payload.name ?? ""),
        limits: (payload.limits as Limits) ?? null,
        startedBy: (payload.startedBy as { name?: string } | null)?.name ?? null,
        status: "RUNNING",
      };
    case "step_planned":
      return { ...view, steps: [...view.steps, toStepView(payload)] };
    case "call_started":
      return updateCall(view, payload, () => ({ status: "running" }));
    case "call_settled":
      return updateCall(view, payload, () => ({
        status: payload.status as CallStatus,
        result: payload.result ?? null,
        error: (payload.error as RunError | null) ?? null,
      }));
    case "calls_invalidated": {
      const stepIndex = Number(payload.stepIndex);
      const outcomes =
        (payload.calls as Array<{ batchIndex: number; status: CallStatus; error: RunError }>) ?? [];
      return updateStep(view, stepIndex, (step) => ({
        ...step,
        calls: step.calls.map((call) => {
          const outcome = outcomes.find((candidate) => candidate.batchIndex === call.batchIndex);
          return outcome ? { ...call, status: outcome.status, result: null, error: outcome.error } : call;
        }),
      }));
    }
    case "step_finished":
      return updateStep(view, Number(payload.stepIndex), (step) => ({
        ...step,
        metrics: payload.metrics as StepMetrics,
        isFinished: true,
      }));
    case "awaiting_approval":
      return {
        ...view,
        status: "WAITING_FOR_APPROVAL",
        pending: {
          stepIndex: Number(payload.stepIndex),
          turnDigest: String(payload.turnDigest),
          calls: (payload.calls as PendingTurnView["calls"]) ?? [],
        },
      };
    case "approval_decided":
      return {
        ...view,
        decisions: [
          ...view.decisions,
          {
            seq: event.seq,
            stepIndex: Number(payload.stepIndex),
            approve: payload.approve === true,
            actor: String(payload.actor ?? ""),
            reason: (payload.reason as string | null) ?? null,
            outcome: String(payload.outcome ?? ""),
            audited: payload.audited !== false,
            at: event.at,
          },
        ],
      };
    case "run_finished":
      return {
        ...view,
        status: payload.status as RunStatus,
        error: (payload.error as RunError | null) ?? null,
        pending: null,
      };
    default:
      // wave_started and any event this view has no use for: logged only.
      return view;
  }
}

function toStepView(payload: Payload): StepView {
  const calls = (payload.calls as Array<Omit<CallView, "result">>) ?? [];
  return {
    index: Number(payload.stepIndex),
    text: (payload.text as string | null) ?? null,
    plan: payload.plan as Plan,
    metrics: payload.metrics as StepMetrics,
    calls: calls.map((call) => ({ ...call, resourceClass: call.resourceClass ?? null, result: null })),
    isFinished: false,
  };
}

function updateStep(view: RunView, stepIndex: number, change: (step: StepView) => StepView): RunView {
  return {
    ...view,
    steps: view.steps.map((step) => (step.index === stepIndex ? change(step) : step)),
  };
}

function updateCall(view: RunView, payload: Payload, change: () => Partial<CallView>): RunView {
  const batchIndex = Number(payload.batchIndex);
  return updateStep(view, Number(payload.stepIndex), (step) => ({
    ...step,
    calls: step.calls.map((call) => (call.batchIndex === batchIndex ? { ...call, ...change() } : call)),
  }));
}
