/**
 * What the live run page shows, as the one fold of a run's events.
 *
 * The server folds the events it has stored to render a page and build the
 * report; the browser folds the same events as they stream in. One function,
 * so a page built from a snapshot, a page that watched every event and the
 * report agree. It projects what the runtime already decided, never a second
 * copy of a rule. Pure data, importable on both sides.
 */

import type { CompletionRecord } from "../model/model";
import { capPersonName } from "../person-name";
import type { PolicyDecision } from "../policy/decide-call";
import type { ShadowRecord } from "../policy/policy-source";
import type { CallStatus, PendingTurn, RunError, RunStatus, StepMetrics } from "../run/run-types";
import type { ToolAllowance } from "../run/tool-allowances";
import type { Limits, Plan, ResourceClass } from "../types";
import type { RunEventPayload, StoredRunEvent } from "./run-events";

export interface CallView {
  batchIndex: number;
  id: string;
  name: string;
  /** Raw arguments exactly as the model emitted them. */
  arguments: string;
  /** The arguments it ran with instead, when an approver changed them (canonical JSON); else null. */
  editedArguments: string | null;
  /** The grant that let it through without a decision ("always allow"); else null. */
  allowedBy: ToolAllowance | null;
  /** The fingerprint of its tool's definition when planned (an MCP server's tool); else null. */
  toolFingerprint: string | null;
  /** The policy rule that decided it, and what a shadow policy would have done (docs/policies.md); absent without. */
  policy?: PolicyDecision;
  gatedByDeclaration?: boolean;
  shadow?: ShadowRecord;
  resourceClass: ResourceClass | null;
  isGated: boolean;
  status: CallStatus;
  result: unknown;
  error: RunError | null;
  /** Seq of the call's `call_started` / `call_settled` event; null until then (and for calls never started). */
  startSeq: number | null;
  settleSeq: number | null;
  /** When it started and settled (ISO, the events' times): its duration, once both are known. */
  startedAt: string | null;
  settledAt: string | null;
  /** How far it said it is while it ran (an MCP server's progress), the latest report; null when none. */
  progress?: { progress: number; total: number | null; message: string | null } | null;
}

export interface StepView {
  index: number;
  /** The completion the step comes from (latency, usage, preamble); null for steps from before it was recorded. */
  completion: CompletionRecord | null;
  text: string | null;
  plan: Plan;
  metrics: StepMetrics;
  calls: CallView[];
  isFinished: boolean;
  /** The step was ended by a cancel of the whole run: the run's end follows it, never another step. */
  endsRun: boolean;
  /** Gates after the barrier that a decision approved with it (batchIndex → decision id): they run without waiting. */
  approvedGates: Record<string, string>;
}

export interface PendingTurnView extends PendingTurn {
  stepIndex: number;
  /** Always listed in a view (a turn stored before gates were listed has its barrier as its one known gate). */
  gates: number[];
  /** True once `approval_expiring` said the wait is in its last fifth. */
  isExpiring: boolean;
  /** The escalation steps that fired while it waits (docs/notifications.md#escalation), oldest first. */
  escalations: EscalationView[];
}

export interface EscalationView {
  seq: number;
  /** ISO time the step fired. */
  at: string;
  channel: string;
  step: number;
  steps: number;
  afterMinutes: number;
  to: { users: string[]; roles: string[] };
}

/**
 * What a decision says wherever it is shown: the live view's log of decisions
 * ({@link DecisionView}) and the run report's `decisions` (`RunReportDecision`)
 * both extend it, so a field means the same in each.
 */
export interface DecisionFacts {
  turnDigest: string;
  approve: boolean;
  /** Who decided: the signed-in person's name, and their user id (null in headless runs). */
  actor: string;
  actorId: string | null;
  /** A denial's reply to the model. */
  reason: string | null;
  /**
   * `expired`: nobody decided in time (never a denial); `voided`: an approval that stopped holding;
   * `counted`: an approval toward a quorum that did not yet meet it (docs/policies.md#quorum).
   */
  outcome: "executed" | "denied" | "expired" | "voided" | "counted";
  /** False for a decision the audit could not store (one that executed no write). */
  audited: boolean;
  /** Shared by every row one decision wrote (approving every gate of a turn gives a row per gate). */
  decisionId: string | null;
  /** `turn`: the decision approved every gate of the pending turn. */
  scope: "gate" | "turn";
  /** The gate's arguments as the approver changed them (in the view, the barrier's); null when unchanged. */
  editedArguments: string | null;
}

export interface DecisionView extends DecisionFacts {
  /**
   * A person's (or a scenario's) decision; the wait's expiry (nobody decided
   * in time); or an approval voided because its tool's definition changed
   * before the call was sent.
   */
  kind: "decision" | "expiry" | "voided";
  seq: number;
  stepIndex: number;
  /** The batchIndexes of the gates it decided, the barrier first. */
  gates: number[];
  /** The tool it granted for the rest of the run ("always allow"); null when none. */
  allowTool: string | null;
  /** ISO time the decision was recorded. */
  at: string;
}

export interface RunView {
  runId: string;
  name: string;
  status: RunStatus;
  limits: Limits | null;
  error: RunError | null;
  /** Completions the model has returned so far. */
  modelCalls: number;
  /** Times a worker took the run over after its worker was gone, and completions asked for again then. */
  recoveries: number;
  recoveredCompletions: number;
  /** The seq of the last event folded in; the stream resumes after it. */
  lastSeq: number;
  steps: StepView[];
  /** The turn waiting for a decision, while the run waits. */
  pending: PendingTurnView | null;
  decisions: DecisionView[];
  /** Tools granted for the rest of the run ("always allow"), by name; a revoked grant is gone. */
  allowedTools: Record<string, ToolAllowance>;
  /** Who started the run, when a signed-in person did. */
  startedBy: { id: string; name: string } | null;
  /** The operator's MCP servers whose tools the run may use. */
  mcpServers: string[];
  /** The run this one was forked from, and the step (1-based) it started again at; null for other runs. */
  forkedFrom: { runId: string; step: number } | null;
  /** Every event folded in, in seq order, with its payload: the page's event log. */
  log: Array<{ seq: number; type: StoredRunEvent["type"]; at: string; payload: StoredRunEvent["payload"] }>;
}

export function emptyRunView(runId: string): RunView {
  return {
    runId,
    name: "",
    status: "RUNNING",
    limits: null,
    error: null,
    modelCalls: 0,
    recoveries: 0,
    recoveredCompletions: 0,
    lastSeq: 0,
    steps: [],
    pending: null,
    decisions: [],
    allowedTools: {},
    startedBy: null,
    mcpServers: [],
    forkedFrom: null,
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
export function applyRunEvent(view: RunView, event: StoredRunEvent): RunView {
  if (event.seq <= view.lastSeq) return view;
  return {
    ...applyEvent(view, event),
    lastSeq: event.seq,
    log: [...view.log, { seq: event.seq, type: event.type, at: event.at, payload: event.payload }],
  };
}

export function foldRunEvents(runId: string, events: readonly StoredRunEvent[]): RunView {
  return events.reduce(applyRunEvent, emptyRunView(runId));
}

/** The escalation steps that fired for a turn, from the log (docs/notifications.md#escalation). */
function escalationsOf(view: RunView, turnDigest: string): EscalationView[] {
  return view.log.flatMap((entry) => {
    if (entry.type !== "approval_escalated") return [];
    const payload = entry.payload as RunEventPayload<"approval_escalated">;
    if (payload.turnDigest !== turnDigest) return [];
    const { channel, step, steps, afterMinutes, to } = payload;
    return [{ seq: entry.seq, at: entry.at, channel, step, steps, afterMinutes, to }];
  });
}

function applyEvent(view: RunView, event: StoredRunEvent): RunView {
  switch (event.type) {
    case "run_started": {
      const { name, limits, startedBy, mcpServers, forkedFrom } = event.payload;
      // A starter's name recorded before names were limited is shown cut.
      const starter = startedBy && { ...startedBy, name: capPersonName(startedBy.name) };
      return { ...view, name, limits, startedBy: starter, mcpServers, forkedFrom, status: "RUNNING" };
    }
    case "step_planned": {
      const { stepIndex, text, plan, metrics, calls, modelCalls, completion } = event.payload;
      const step: StepView = {
        index: stepIndex,
        completion,
        text,
        plan,
        metrics,
        calls: calls.map((call) => ({
          ...call,
          editedArguments: null,
          result: null,
          startSeq: null,
          settleSeq: null,
          startedAt: null,
          settledAt: null,
        })),
        isFinished: false,
        endsRun: false,
        approvedGates: {},
      };
      return { ...view, modelCalls, steps: [...view.steps, step] };
    }
    case "wave_started":
      return view;
    case "call_started":
      return updateCall(view, event.payload, { status: "running", startSeq: event.seq, startedAt: event.at });
    case "call_progress": {
      const { progress, total, message } = event.payload;
      const call = findCall(view, event.payload);
      // A report that arrives after the call answered says nothing new.
      if (call?.status !== "running") return view;
      return updateCall(view, event.payload, { progress: { progress, total, message } });
    }
    case "call_settled": {
      const { status, result, error } = event.payload;
      return updateCall(view, event.payload, {
        status,
        result: result ?? null,
        error,
        settleSeq: event.seq,
        settledAt: event.at,
      });
    }
    case "calls_invalidated": {
      const outcomes = new Map(event.payload.calls.map((call) => [call.batchIndex, call]));
      return updateStep(view, event.payload.stepIndex, (step) => ({
        ...step,
        calls: step.calls.map((call) => {
          const outcome = outcomes.get(call.batchIndex);
          return outcome ? { ...call, status: outcome.status, result: null, error: outcome.error } : call;
        }),
      }));
    }
    case "step_finished":
      return updateStep(view, event.payload.stepIndex, (step) => ({
        ...step,
        metrics: event.payload.metrics,
        isFinished: true,
        endsRun: event.payload.runCancelled === true,
      }));
    case "awaiting_approval":
    case "run_released": {
      const { stepIndex, turnDigest, calls, gates } = event.payload;
      const pending: PendingTurnView = {
        stepIndex,
        turnDigest,
        calls,
        gates: gates ?? [calls[0]?.batchIndex ?? 0],
        isExpiring: false,
        // A refused decision gives the same turn back: the steps that fired for it still stand.
        escalations: event.type === "run_released" ? escalationsOf(view, turnDigest) : [],
        ...(event.payload.expiresAt ? { expiresAt: event.payload.expiresAt } : {}),
        ...(event.payload.tools ? { tools: event.payload.tools } : {}),
        ...(event.payload.quorum ? { quorum: event.payload.quorum } : {}),
        ...(event.payload.approvals ? { approvals: event.payload.approvals } : {}),
      };
      return { ...view, status: "WAITING_FOR_APPROVAL", pending };
    }
    case "approval_counted": {
      // Who has approved so far (docs/policies.md#quorum); after an edit, the awaiting_approval
      // that follows shows the new turn with its own count.
      const { stepIndex, editedArguments, countedFor, approvals } = event.payload;
      const barrier = view.pending?.calls[0]?.batchIndex;
      const edited =
        editedArguments === null || barrier === undefined
          ? view
          : updateStep(view, stepIndex, (step) => ({
              ...step,
              calls: step.calls.map((call) =>
                call.batchIndex === barrier ? { ...call, editedArguments } : call,
              ),
            }));
      const { pending } = edited;
      if (!pending || pending.turnDigest !== countedFor) return edited;
      return { ...edited, pending: { ...pending, approvals } };
    }
    case "run_claimed":
      // Taken up by a decision or cancellation: no decision can be offered until it waits again.
      return { ...view, status: "RUNNING", pending: null };
    case "approval_decided": {
      const decision: DecisionView = { ...event.payload, kind: "decision", seq: event.seq, at: event.at };
      const { approve, stepIndex, gates, editedArguments, decisionId, allowTool, actor, actorId } =
        event.payload;
      const allowedTools =
        allowTool !== null && decisionId !== null
          ? { ...view.allowedTools, [allowTool]: { decisionId, actor, actorId } }
          : view.allowedTools;
      const decided = { ...view, decisions: [...view.decisions, decision], allowedTools };
      if (!approve) return decided;
      const [barrier, ...laterGates] = gates;
      return updateStep(decided, stepIndex, (step) => ({
        ...step,
        calls: step.calls.map((call) =>
          call.batchIndex === barrier && editedArguments !== null ? { ...call, editedArguments } : call,
        ),
        approvedGates: {
          ...step.approvedGates,
          ...Object.fromEntries(laterGates.map((batchIndex) => [batchIndex, decisionId ?? "unknown"])),
        },
      }));
    }
    case "run_resumed":
      return { ...view, status: "RUNNING", pending: null };
    case "approval_expiring": {
      const { pending } = view;
      if (!pending || pending.turnDigest !== event.payload.turnDigest) return view;
      return { ...view, pending: { ...pending, isExpiring: true } };
    }
    case "approval_escalated": {
      const { pending } = view;
      if (!pending || pending.turnDigest !== event.payload.turnDigest) return view;
      const { channel, step, steps, afterMinutes, to } = event.payload;
      const escalation = { seq: event.seq, at: event.at, channel, step, steps, afterMinutes, to };
      return { ...view, pending: { ...pending, escalations: [...pending.escalations, escalation] } };
    }
    case "approval_expired": {
      const { stepIndex, turnDigest, batchIndex, decisionId, audited } = event.payload;
      const expiry = recordedDecision(event, {
        kind: "expiry",
        actor: "nobody",
        reason: null,
        outcome: "expired",
      });
      return {
        ...view,
        decisions: [
          ...view.decisions,
          { ...expiry, stepIndex, turnDigest, gates: [batchIndex], decisionId, audited },
        ],
      };
    }
    case "approval_voided": {
      const { stepIndex, batchIndex, decisionId, reason, audited } = event.payload;
      const voided = recordedDecision(event, {
        kind: "voided",
        actor: "tool-playground",
        reason,
        outcome: "voided",
      });
      // The turn of the approval it voids.
      const turnDigest =
        view.decisions.findLast((decision) => decision.gates.includes(batchIndex))?.turnDigest ?? "";
      return {
        ...view,
        decisions: [
          ...view.decisions,
          { ...voided, stepIndex, turnDigest, gates: [batchIndex], decisionId, audited },
        ],
      };
    }
    case "tool_allowance_revoked": {
      const { [event.payload.toolName]: _, ...allowedTools } = view.allowedTools;
      return { ...view, allowedTools };
    }
    case "run_recovered":
      return {
        ...view,
        recoveries: view.recoveries + 1,
        recoveredCompletions: view.recoveredCompletions + (event.payload.reissuedCompletion ? 1 : 0),
      };
    case "run_finished":
      return { ...view, status: event.payload.status, error: event.payload.error, pending: null };
    default:
      return assertNever(event);
  }
}

/** A decision nobody made by hand (an expiry, a voided approval): on one gate, approving nothing. */
function recordedDecision(
  event: StoredRunEvent,
  what: Pick<DecisionView, "kind" | "actor" | "reason" | "outcome">,
): Omit<DecisionView, "stepIndex" | "turnDigest" | "gates" | "decisionId" | "audited"> {
  return {
    ...what,
    seq: event.seq,
    at: event.at,
    approve: false,
    actorId: null,
    scope: "gate",
    editedArguments: null,
    allowTool: null,
  };
}

function assertNever(event: never): never {
  throw new Error(`no fold for event ${JSON.stringify(event)}`);
}

function updateStep(view: RunView, stepIndex: number, change: (step: StepView) => StepView): RunView {
  return {
    ...view,
    steps: view.steps.map((step) => (step.index === stepIndex ? change(step) : step)),
  };
}

function findCall(view: RunView, at: { stepIndex: number; batchIndex: number }): CallView | undefined {
  return view.steps
    .find((step) => step.index === at.stepIndex)
    ?.calls.find((call) => call.batchIndex === at.batchIndex);
}

function updateCall(
  view: RunView,
  at: { stepIndex: number; batchIndex: number },
  change: Partial<CallView>,
): RunView {
  return updateStep(view, at.stepIndex, (step) => ({
    ...step,
    calls: step.calls.map((call) => (call.batchIndex === at.batchIndex ? { ...call, ...change } : call)),
  }));
}
