import "server-only";
import type { DatabaseHandle } from "@/db/client";
import { ensureEventPartitions } from "@/db/event-partitions";
import { createAgentMailboxRepository } from "@/db/repositories/agent-mailbox";
import { createGrantRepository } from "@/db/repositories/grant-repository";
import { findHousekeptRun } from "@/db/repositories/run-housekeeping";
import { listRecentRuns } from "@/db/repositories/run-list-queries";
import { createRunRepository, RUN_CANCELS_CHANNEL } from "@/db/repositories/run-repository";
import { createRunToolContext, createRunWorkspace } from "@/db/repositories/run-tool-context";
import {
  createAgentProtocol,
  createCompletionDrafts,
  createRunHost,
  type RunStarter,
  type RunStatus,
  type RunStore,
  type Scenario,
  type StartedRun,
  type StartRunOptions,
} from "@/lib/runtime";
import type { Identity } from "@/lib/server/auth/request-identity";
import { type ExecutionSettings, readExecutionSettings } from "@/lib/server/config/execution-settings";
import { checkScenarioModel, type ModelEndpoints } from "@/lib/server/config/model-endpoints";
import { exportAuditCsv, listAuditPage } from "@/lib/server/lists/list-audit";
import { exportEscalationsCsv, listEscalations } from "@/lib/server/lists/list-escalations";
import { listInbox } from "@/lib/server/lists/list-inbox";
import { listRunsPage } from "@/lib/server/lists/list-runs";
import type { McpConnections } from "@/lib/server/mcp/mcp-connections";
import { checkScenarioMcpServers, type McpServers } from "@/lib/server/mcp/mcp-servers";
import { createMcpToolPreparer } from "@/lib/server/mcp/mcp-tool-definitions";
import { instrumentStore } from "@/lib/server/metrics/instrument-store";
import { getMetrics, measureDecision, metricsTelemetry } from "@/lib/server/metrics/metrics";
import { createModelForScenario } from "@/lib/server/models/create-model-for-scenario";
import { logWarning } from "@/lib/server/ops/logger";
import { judgePatterns } from "@/lib/server/patterns/judge-patterns";
import { createPolicySource } from "@/lib/server/policies/policies";
import { archiveRun, deleteRun } from "@/lib/server/runs/run-housekeeping";
import { getRunEventHub, type RunEventListener } from "@/lib/server/streams/listen-fan-out";
import { createRunEventFeed } from "@/lib/server/streams/run-event-reader";

export interface RunServiceOptions {
  /** Puts a decorator between the runtime and the database: fault injection, or a test's failures. */
  wrapStore?(store: RunStore): RunStore;
  log?(message: string, detail?: Record<string, unknown>): void;
  /** The operator's model endpoints (a server process's come from lib/server/server-context.ts). */
  modelEndpoints: ModelEndpoints;
  /** Separation of duties for every run; by default PLAYGROUND_REQUIRE_DISTINCT_APPROVER=1. */
  requireDistinctApprover?: boolean;
  /** The lease and this instance's name; by default read from this process's environment. */
  execution?: Pick<ExecutionSettings, "leaseMs" | "instanceId">;
  /** The operator's MCP servers and the connections to them (a server process's come from lib/server/server-context.ts). */
  mcp: { servers: McpServers; connections: McpConnections };
}

export type { RunStarter, StartedRun };

/**
 * The server's runs: the runtime's run host over the database, plus what only
 * a database gives (cancellations and events announced across instances, the
 * inbox, recent runs). Every surface (HTTP API, server actions, CLI) goes
 * through one of these.
 */
export function createRunService(handle: DatabaseHandle, options: RunServiceOptions) {
  const { db } = handle;
  const repository = createRunRepository(db);
  const { modelEndpoints, mcp } = options;
  const execution = options.execution ?? readExecutionSettings();
  const metrics = getMetrics();
  // Agents outside the playground leave their turns and reports here (docs/agent-api.md).
  const agentMailbox = createAgentMailboxRepository(db);
  // What streaming models have generated so far, for this process's pages (docs/transcript-and-fork.md#streamed-output).
  const completionDrafts = createCompletionDrafts();
  const host = createRunHost({
    completionDrafts,
    agents: { mailbox: agentMailbox, pollMs: 250 },
    store: instrumentStore(options.wrapStore ? options.wrapStore(repository) : repository, metrics),
    telemetry: metricsTelemetry(metrics),
    createModel: (scenario) => createModelForScenario(scenario, modelEndpoints),
    checkScenario: (scenario) => {
      checkScenarioModel(scenario, modelEndpoints);
      checkScenarioMcpServers(scenario, mcp.servers);
    },
    prepareTools: createMcpToolPreparer(mcp.servers, mcp.connections),
    judgePatterns,
    createToolContext: (runId, signal) => createRunToolContext(db, runId, signal),
    leaseMs: execution.leaseMs,
    instanceId: execution.instanceId,
    requireDistinctApprover:
      options.requireDistinctApprover ?? process.env.PLAYGROUND_REQUIRE_DISTINCT_APPROVER === "1",
    log: options.log,
    // The published approval policies (docs/policies.md): read once per planned batch.
    policies: createPolicySource(db),
    // Scoped grants (docs/policies.md#grants): read per planned batch, so every instance sees a revocation.
    grants: createGrantRepository(db),
  });

  // A cancel may arrive at another instance: it stores the request and NOTIFYs, and the instance
  // driving the run aborts its in-flight work here (its worker then takes the stored request).
  const listeningForCancels = handle
    .listen(RUN_CANCELS_CHANNEL, host.abortInProcess)
    .catch((error: unknown) => {
      (options.log ?? logWarning)("cannot listen for cancellations from other instances", {
        error: String(error),
      });
      return async () => {};
    });

  // One reader per followed run in this process, shared by every open stream of that run.
  const feed = createRunEventFeed(getRunEventHub(handle), host.readEvents, (error) =>
    (options.log ?? logWarning)("a run's new events could not be read", { error: String(error) }),
  );

  function continueInBackground(runId: string, settled: Promise<unknown>) {
    settled.catch((error: unknown) =>
      (options.log ?? logWarning)(`run ${runId} stopped with an error`, { error: String(error) }),
    );
  }

  return {
    ...host,
    /** This process's streamed model output, by run: transient, never among the run's events. */
    completionDrafts,
    /** The agent protocol over this instance's runs (docs/agent-api.md). */
    agents: createAgentProtocol({
      host,
      mailbox: agentMailbox,
      pollMs: 250,
      watchRun: (runId, onChange) => getRunEventHub(handle).subscribe(runId, () => onChange()),
    }),
    async startRun(
      scenario: Scenario,
      startedBy: RunStarter | null = null,
      startOptions?: StartRunOptions,
    ): Promise<StartedRun> {
      // A cancel sent to another instance must be able to reach this run from its first moment.
      await listeningForCancels;
      return host.startRun(scenario, startedBy, startOptions);
    },
    /**
     * Applies a decision and answers as soon as it has taken effect (status
     * RUNNING, or WAITING_FOR_APPROVAL for an approval counted toward a quorum
     * it did not meet: the run still waits); the run goes on in the
     * background. The browser's server actions use this: a tab runs them one
     * at a time, so waiting for the run would hold up its Cancel buttons and
     * the inbox's next decision.
     */
    async startDecision(...args: Parameters<typeof host.startDecision>) {
      const { settled, ...started } = await measureDecision(() => host.startDecision(...args));
      continueInBackground(args[0], settled);
      const status: RunStatus = started.outcome === "counted" ? "WAITING_FOR_APPROVAL" : "RUNNING";
      return { ...started, status };
    },
    /** Applies a decision and answers once the run next waits or ends (the HTTP API's `?wait=settled`). */
    decide: (...args: Parameters<typeof host.decide>) => measureDecision(() => host.decide(...args)),
    /** Takes over runs whose worker is gone (the background sweep), counting each. */
    async recoverExpiredRuns(...args: Parameters<typeof host.recoverExpiredRuns>) {
      const recovered = await host.recoverExpiredRuns(...args);
      metrics.recoveries.inc(recovered.length);
      return recovered;
    },
    /** Like {@link startDecision}: answers once the cancellation has taken effect. */
    async startCancelRun(...args: Parameters<typeof host.startCancelRun>) {
      const { settled } = await host.startCancelRun(...args);
      continueInBackground(args[0], settled);
      return { status: "RUNNING" as const };
    },
    /** Hands `listener` each batch of a run's newly committed events (one read per batch, however many follow). */
    followEvents: feed.follow,
    /** Announces committed events of one run (or every run, `"*"`), from this or any instance. */
    subscribeToEvents: (runId: string | "*", listener: RunEventListener) =>
      getRunEventHub(handle).subscribe(runId, listener),
    listInbox: (page?: Parameters<typeof listInbox>[1]) => listInbox(db, page),
    listRuns: (page: Parameters<typeof listRunsPage>[1]) => listRunsPage(db, page),
    listAudit: (page: Parameters<typeof listAuditPage>[1]) => listAuditPage(db, page),
    /** The latest escalation steps that fired, for the audit (docs/notifications.md#escalation). */
    listEscalations: (options: Parameters<typeof listEscalations>[1]) => listEscalations(db, options),
    exportEscalationsCsv: (filter: Parameters<typeof exportEscalationsCsv>[1]) =>
      exportEscalationsCsv(db, filter),
    /** A file of a run's workspace as it is now (its path already normalised), or undefined. */
    readWorkspaceFile: (runId: string, path: string) => createRunWorkspace(db, runId).read(path),
    exportAuditCsv: (filter: Parameters<typeof exportAuditCsv>[1]) => exportAuditCsv(db, filter),
    /** Archives or unarchives a run for its starter or an admin (docs/housekeeping.md). */
    archiveRun: (runId: string, archived: boolean, identity: Identity | null) =>
      archiveRun(db, runId, archived, identity),
    /** Deletes a finished run's own data for its starter or an admin; the audit stays (docs/housekeeping.md). */
    deleteRun: (runId: string, identity: Identity | null) => deleteRun(db, runId, identity),
    /** Whether the run is archived, and who started it: what its page's housekeeping buttons need. */
    readHousekeeping: async (runId: string) => {
      const run = await findHousekeptRun(db, runId);
      return run && { archivedAt: run.archivedAt?.toISOString() ?? null, startedById: run.startedById };
    },
    /** Makes the event log's months ahead that are missing (a sweep; docs/housekeeping.md#a-year-of-events). */
    ensureEventPartitions: (now: Date = new Date()) => ensureEventPartitions(db, now),
    async listRecentRuns(limit = 10) {
      const rows = await listRecentRuns(db, limit);
      return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
