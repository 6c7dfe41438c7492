import "server-only";
import { randomUUID } from "node:crypto";
import type { DatabaseHandle } from "@/db/client";
import { appendEvent } from "@/db/repositories/append-event";
import { getRunDetail, listRecentRuns } from "@/db/repositories/run-queries";
import { createRunRepository, RUN_CANCELS_CHANNEL, type StoreFaults } from "@/db/repositories/run-repository";
import { createRunToolContext } from "@/db/repositories/run-tool-context";
import { runs, workspaceFiles } from "@/db/schema";
import {
  type CoordinatorDependencies,
  cancelRun,
  createToolRegistry,
  DEFAULT_LIMITS,
  type Decision,
  type DecisionResult,
  decide,
  type Limits,
  normalizeWorkspacePath,
  type RunEnvironment,
  type RunRecord,
  type RunStatus,
  type RunStore,
  runSteps,
  type Scenario,
  startCancelRun,
  startDecision,
  type TranscriptEntry,
} from "@/lib/runtime";
import { buildRunReport, type RunReport } from "./build-run-report";
import { createModelForScenario } from "./create-model-for-scenario";
import { getModelEndpoints } from "./get-model-endpoints";
import { listInbox } from "./list-inbox";
import { loadRunView, readRunEvents } from "./load-run-view";
import { checkScenarioModel, type ModelEndpoints } from "./model-endpoints";
import { getRunEventHub, type RunEventListener } from "./run-event-hub";

/** How long a worker's claim on a run holds before another instance may recover it. */
const LEASE_MS = 5 * 60_000;

export interface RunServiceOptions {
  faults?: StoreFaults;
  /** Tests wrap the store to simulate failures the database cannot be made to produce on demand. */
  wrapStore?(store: RunStore): RunStore;
  log?(message: string, detail?: Record<string, unknown>): void;
  /** The operator's model endpoints; by default read from this process's environment. */
  modelEndpoints?: ModelEndpoints;
  /** Separation of duties for every run; by default PLAYGROUND_REQUIRE_DISTINCT_APPROVER=1. */
  requireDistinctApprover?: boolean;
}

/** Who starts a run, when a person does (the CLI runs headless, as nobody). */
export interface RunStarter {
  id: string;
  name: string;
}

export interface StartedRun {
  runId: string;
  /** Settles when this worker stops driving the run (it waits, or it ended). */
  settled: Promise<RunStatus>;
}

/**
 * The server's runs: starts them, drives them, applies decisions and
 * cancellations through the one coordinator, and reports them. Every surface
 * (HTTP API, server actions, CLI) goes through one of these.
 */
export function createRunService(handle: DatabaseHandle, options: RunServiceOptions = {}) {
  const { db } = handle;
  const repository = createRunRepository(db, options.faults);
  const store = options.wrapStore ? options.wrapStore(repository) : repository;
  const stepControllers = new Map<string, AbortController>();
  const modelEndpoints = options.modelEndpoints ?? getModelEndpoints();

  function stepSignal(runId: string): AbortSignal {
    let controller = stepControllers.get(runId);
    if (!controller || controller.signal.aborted) {
      controller = new AbortController();
      stepControllers.set(runId, controller);
    }
    return controller.signal;
  }

  function createEnvironment(run: RunRecord, claimToken: string): RunEnvironment {
    const scenario = run.scenario as Scenario;
    return {
      runId: run.id,
      claimToken,
      store,
      model: createModelForScenario(scenario, modelEndpoints),
      registry: createToolRegistry({ tools: scenario.tools, approvals: scenario.approvals }),
      limits: run.limits,
      stepSignal: () => stepSignal(run.id),
      createToolContext: (signal) => createRunToolContext(db, run.id, signal),
      log: options.log,
    };
  }

  // A cancel may arrive at another instance: it stores the request and NOTIFYs, and the instance
  // driving the run aborts its in-flight work here (its worker then takes the stored request).
  const listeningForCancels = handle
    .listen(RUN_CANCELS_CHANNEL, (runId) => stepControllers.get(runId)?.abort())
    .catch((error: unknown) => {
      (options.log ?? console.error)("cannot listen for cancellations from other instances", {
        error: String(error),
      });
      return async () => {};
    });

  const coordinator: CoordinatorDependencies & { abortInProcess(runId: string): void } = {
    store,
    createEnvironment,
    createClaimToken: () => randomUUID(),
    leaseMs: LEASE_MS,
    requireDistinctApprover:
      options.requireDistinctApprover ?? process.env.PLAYGROUND_REQUIRE_DISTINCT_APPROVER === "1",
    log: options.log,
    abortInProcess: (runId) => stepControllers.get(runId)?.abort(),
  };

  /** The rows a scenario starts with; the scenario schema has already refused bad paths and tools. */
  function prepare(scenario: Scenario) {
    const files = Object.entries(scenario.workspace).map(([path, content]) => ({
      path: normalizeWorkspacePath(path),
      content,
    }));
    const limits: Limits = { ...DEFAULT_LIMITS, ...scenario.limits };
    return { files, limits };
  }

  async function startRun(scenario: Scenario, startedBy: RunStarter | null = null): Promise<StartedRun> {
    checkScenarioModel(scenario, modelEndpoints);
    await listeningForCancels;
    const { files, limits } = prepare(scenario);
    const runId = randomUUID();
    const claimToken = randomUUID();
    await db.transaction(async (tx) => {
      await tx.insert(runs).values({
        id: runId,
        name: scenario.name,
        status: "RUNNING",
        scenario,
        limits,
        claimToken,
        leaseExpiresAt: new Date(Date.now() + LEASE_MS),
        startedById: startedBy?.id ?? null,
        startedByName: startedBy?.name ?? null,
      });
      if (files.length > 0) await tx.insert(workspaceFiles).values(files.map((file) => ({ runId, ...file })));
      await appendEvent(tx, runId, "run_started", { name: scenario.name, limits, startedBy });
    });
    const transcript: TranscriptEntry[] =
      scenario.model.kind === "openai-compatible" ? [{ role: "user", text: scenario.model.prompt }] : [];
    const run = await store.getRun(runId);
    if (!run) throw new Error(`run ${runId} vanished after it was stored`);
    const settled = runSteps(createEnvironment(run, claimToken), {
      transcript,
      modelCalls: 0,
      nextStepIndex: 0,
    });
    return { runId, settled };
  }

  function continueInBackground(runId: string, settled: Promise<RunStatus>) {
    settled.catch((error: unknown) =>
      (options.log ?? console.error)(`run ${runId} stopped with an error`, { error: String(error) }),
    );
  }

  return {
    store,
    startRun,
    /** Applies a decision and answers once the run next waits or ends (HTTP API, CLI). */
    decide: (runId: string, decision: Decision): Promise<DecisionResult> =>
      decide(runId, decision, coordinator),
    /**
     * Applies a decision and answers as soon as it has taken effect (status
     * RUNNING); the run goes on in the background. The browser's server
     * actions use this: a tab runs them one at a time, so waiting for the run
     * would hold up its Cancel buttons and the inbox's next decision.
     */
    async submitDecision(runId: string, decision: Decision): Promise<DecisionResult> {
      const { outcome, settled } = await startDecision(runId, decision, coordinator);
      continueInBackground(runId, settled);
      return { outcome, status: "RUNNING" };
    },
    cancel: (runId: string, scope: "turn" | "run") => cancelRun(runId, scope, coordinator),
    /** Like {@link submitDecision}: answers once the cancellation has taken effect. */
    async submitCancel(runId: string, scope: "turn" | "run"): Promise<{ status: RunStatus }> {
      const { settled } = await startCancelRun(runId, scope, coordinator);
      continueInBackground(runId, settled);
      return { status: "RUNNING" };
    },
    async getReport(runId: string): Promise<RunReport | null> {
      const detail = await getRunDetail(db, runId);
      return detail ? buildRunReport(detail) : null;
    },
    loadView: (runId: string) => loadRunView(db, runId),
    readEvents: (runId: string, afterSeq: number) => readRunEvents(db, runId, afterSeq),
    /** Announces committed events of one run (or every run, `"*"`), from this or any instance. */
    subscribeToEvents: (runId: string | "*", listener: RunEventListener) =>
      getRunEventHub(handle).subscribe(runId, listener),
    listInbox: () => listInbox(db),
    async listRecentRuns(limit = 10) {
      const rows = await listRecentRuns(db, limit);
      return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
