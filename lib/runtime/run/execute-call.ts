import { isWriteEffect } from "../declares-write";
import { RuntimeError, ToolError } from "../errors";
import type { PreflightedCall } from "../preflight";
import type { RunEnvironment } from "./run-environment";
import type { CallOutcome } from "./run-types";

/** A tool ran but its record could not be stored: the run must not go on as if audited. */
export class StepAuditError extends RuntimeError {
  static override readonly brand: string = "StepAuditError";
  declare readonly code: "audit_failed";
  readonly runId: string;
  readonly batchIndex: number;
  constructor(runId: string, call: PreflightedCall, cause: unknown) {
    super(
      "audit_failed",
      // The cause (a driver message, often with SQL) stays in `cause` for the server log, never in the report.
      `Tool ${call.name} (batchIndex ${call.batchIndex}) ran, but its record could not be stored.`,
      { cause },
    );
    this.runId = runId;
    this.batchIndex = call.batchIndex;
  }
}

/**
 * Runs one preflighted call: stamps its start, executes the tool, stamps and
 * stores its outcome. A tool's failure is an `error` outcome, never a throw.
 * A write whose outcome cannot be stored throws {@link StepAuditError}
 * (fail-closed step audit, SPEC §5); so does any call whose start cannot be
 * stored, since then it never ran.
 */
export async function executeCall(
  environment: RunEnvironment,
  stepIndex: number,
  call: PreflightedCall,
  signal: AbortSignal,
): Promise<CallOutcome> {
  const { store, runId, claimToken, registry } = environment;
  await store.startCall(runId, claimToken, stepIndex, call.batchIndex);
  const outcome = await runTool(environment, call, signal);
  try {
    await store.settleCall(runId, claimToken, stepIndex, call.batchIndex, outcome);
  } catch (error) {
    if (isWriteEffect(registry.effectFor(call.name))) throw new StepAuditError(runId, call, error);
    environment.log?.("a read call's outcome could not be stored; the run goes on", {
      runId,
      batchIndex: call.batchIndex,
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return outcome;
}

async function runTool(
  environment: RunEnvironment,
  call: PreflightedCall,
  signal: AbortSignal,
): Promise<CallOutcome> {
  const tool = environment.registry.get(call.name);
  if (!tool || !call.parsedArguments) {
    // Unreachable for a planned call; kept so a bad plan fails one call, not the run.
    return {
      status: "error",
      result: null,
      error: { code: "not_executable", message: `Call ${call.id} cannot be executed.` },
    };
  }
  if (signal.aborted) {
    return {
      status: "error",
      result: null,
      error: { code: "aborted", message: `${call.name} was cancelled before it started.` },
    };
  }
  try {
    const result = await tool.execute(call.parsedArguments, environment.createToolContext(signal));
    return { status: "ok", result: result ?? null, error: null };
  } catch (error) {
    if (ToolError.isInstance(error))
      return { status: "error", result: null, error: { code: error.code, message: error.message } };
    environment.log?.("a tool threw an unexpected error", { name: call.name, error: String(error) });
    return {
      status: "error",
      result: null,
      error: {
        code: "tool_crashed",
        // Not the error's own message: an unexpected failure (a database error, say) may carry SQL.
        message: `${call.name} failed unexpectedly; the server log has the details.`,
      },
    };
  }
}
