import type { ModelUsage } from "../model/model";
import type { Effect, ResourceClass } from "../types";
import type { CallStatus } from "./run-types";

/**
 * What the runtime reports as it works, for metrics (and traces) outside it.
 * Called by the worker doing the work, once per thing that happened, after it
 * is stored. Never carries arguments, results, reasons or run ids: only what
 * an operator may aggregate.
 */
export interface RunTelemetry {
  /** A model completion was planned and stored; `repair` means nothing in it ran (the model must answer again). */
  completionPlanned(completion: {
    model: string;
    latencyMs: number;
    usage: ModelUsage | null;
    repair: boolean;
    /** The runtime answered it for a script (legacy policy): no model was asked. */
    synthesized: boolean;
  }): void;
  /** A tool call ran and its outcome was stored (or could not be: then it is reported before that fails). */
  toolCallSettled(call: {
    tool: string;
    resourceClass: ResourceClass | null;
    effect: Effect;
    status: CallStatus;
    durationMs: number;
  }): void;
}
