import "server-only";
import type { DatabaseHandle } from "@/db/client";
import { createAgentMailboxRepository } from "@/db/repositories/agent-mailbox";
import { listRecentRuns } from "@/db/repositories/run-queries";
import { createRunRepository, RUN_CANCELS_CHANNEL } from "@/db/repositories/run-repository";
import { createRunToolContext, createRunWorkspace } from "@/db/repositories/run-tool-context";
import {
  createAgentProtocol,
  createRunHost,
  type RunStarter,
  type RunStore,
  type Scenario,
  type StartedRun,
} from "@/lib/runtime";
import { createModelForScenario } from "./create-model-for-scenario";
import { type ExecutionSettings, readExecutionSettings } from "./execution-settings";
import { getModelEndpoints } from "./get-model-endpoints";
import { exportAuditCsv, listAuditPage } from "./list-audit";
import { listInbox } from "./list-inbox";
import { listRunsPage } from "./list-runs";
import { logWarning } from "./logger";
import { getMcpConnections, getMcpServers } from "./mcp/get-mcp-servers";
import type { McpConnections } from "./mcp/mcp-connections";
import { checkScenarioMcpServers, type McpServers } from "./mcp/mcp-servers";
import { createMcpToolPreparer } from "./mcp/mcp-tool-definitions";
import { instrumentStore } from "./metrics/instrument-store";
import { getMetrics, measureDecision, metricsTelemetry } from "./metrics/metrics";
import { checkScenarioModel, type ModelEndpoints } from "./model-endpoints";
import { judgePatterns } from "./patterns/judge-patterns";
import { createRunEventFeed } from "./run-event-feed";
import { getRunEventHub, type RunEventListener } from "./run-event-hub";

export interface RunServiceOptions {
  /** Puts a decorator between the runtime and the database: fault injection, or a test's failures. */
  wrapStore?(store: RunStore): RunStore;
  log?(message: string, detail?: Record<string, unknown>): void;
  /** The operator's model endpoints; by default read from this process's environment. */
  modelEndpoints?: ModelEndpoints;
  /** Separation of duties for every run; by default PLAYGROUND_REQUIRE_DISTINCT_APPROVER=1. */
  requireDistinctApprover?: boolean;
  /** The lease and this instance's name; by default read from this process's environment. */
  execution?: Pick<ExecutionSettings, "leaseMs" | "instanceId">;
  /** The operator's MCP servers and the connections to them; by default this process's. */
  mcp?: { servers: McpServers; connections: McpConnections };
}

export type { RunStarter, StartedRun };

/**
 * The server's runs: the runtime's run host over the database, plus what only
 * a database gives (cancellations and events announced across instances, the
 * inbox, recent runs). Every surface (HTTP API, server actions, CLI) goes
 * through one of these.
 */
export function createRunService(handle: DatabaseHandle, options: RunServiceOptions = {}) {
  const { db } = handle;
  const repository = createRunRepository(db);
  const modelEndpoints = options.modelEndpoints ?? getModelEndpoints();
  const execution = options.execution ?? readExecutionSettings();
  const metrics = getMetrics();
  const mcp = options.mcp ?? { servers: getMcpServers(), connections: getMcpConnections() };
  // Agents outside the playground leave their turns and reports here (docs/agent-api.md).
  const agentMailbox = createAgentMailboxRepository(db);
  const host = createRunHost({
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
    /** The agent protocol over this instance's runs (docs/agent-api.md). */
    agents: createAgentProtocol({
      host,
      mailbox: agentMailbox,
      pollMs: 250,
      watchRun: (runId, onChange) => getRunEventHub(handle).subscribe(runId, () => onChange()),
    }),
    async startRun(scenario: Scenario, startedBy: RunStarter | null = null): Promise<StartedRun> {
      // A cancel sent to another instance must be able to reach this run from its first moment.
      await listeningForCancels;
      return host.startRun(scenario, startedBy);
    },
    /**
     * Applies a decision and answers as soon as it has taken effect (status
     * RUNNING); the run goes on in the background. The browser's server
     * actions use this: a tab runs them one at a time, so waiting for the run
     * would hold up its Cancel buttons and the inbox's next decision.
     */
    async startDecision(...args: Parameters<typeof host.startDecision>) {
      const { outcome, settled } = await measureDecision(() => host.startDecision(...args));
      continueInBackground(args[0], settled);
      return { outcome, status: "RUNNING" as const };
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
    /** A file of a run's workspace as it is now (its path already normalised), or undefined. */
    readWorkspaceFile: (runId: string, path: string) => createRunWorkspace(db, runId).read(path),
    exportAuditCsv: (filter: Parameters<typeof exportAuditCsv>[1]) => exportAuditCsv(db, filter),
    async listRecentRuns(limit = 10) {
      const rows = await listRecentRuns(db, limit);
      return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
