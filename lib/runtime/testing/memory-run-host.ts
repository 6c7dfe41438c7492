import { RuntimeError } from "../errors";
import { createRunHost, type RunHost, type RunHostOptions } from "../host/run-host";
import type { Model } from "../model/model";
import { createScriptedModel } from "../model/scripted-model";
import type { RunStore } from "../run/run-store";
import { createMemoryRunStore, type MemoryRunStore } from "./memory-run-store";
import { createMemoryToolContext, type MemoryToolContext } from "./memory-tool-context";

export interface MemoryRunHost extends RunHost {
  /** The store underneath (before any `wrapStore`). */
  store: MemoryRunStore;
  /** The tool context a run's tools have used: its workspace, memory and tasks. */
  toolContext(runId: string): MemoryToolContext;
}

/**
 * A run host over the in-memory store: scenarios run exactly as on the
 * server, without a database (tests, and the CLI's headless runs). `wrapStore` puts a decorator between the
 * runtime and the store, to make it fail on demand.
 */
export function createMemoryRunHost(
  options: {
    /** Share one store (and its runs' tool contexts) between hosts, as instances share a database. */
    store?: MemoryRunStore;
    contexts?: Map<string, MemoryToolContext>;
    wrapStore?(store: RunStore): RunStore;
    requireDistinctApprover?: boolean;
    leaseMs?: number;
    instanceId?: string;
    /** The model a scenario names; by default the scripted one (and none other). */
    createModel?: RunHostOptions["createModel"];
    checkScenario?: RunHostOptions["checkScenario"];
    /** Tools defined elsewhere (say, a stand-in for an MCP server's), listed for each worker. */
    prepareTools?: RunHostOptions["prepareTools"];
    /** Puts a decorator around every run's model: to record what it is asked, or make it hang. */
    wrapModel?(model: Model): Model;
    log?: RunHostOptions["log"];
    now?: RunHostOptions["now"];
    deadlineTimers?: boolean;
    /** The agents' mailbox (share one between hosts, like the store), to open agent runs. */
    agents?: RunHostOptions["agents"];
    /** The published approval policies (docs/policies.md); none: the declarations decide. */
    policies?: RunHostOptions["policies"];
    /** Where scoped grants are kept (share one between hosts, like the store); none: approvals give none. */
    grants?: RunHostOptions["grants"];
  } = {},
): MemoryRunHost {
  const store = options.store ?? createMemoryRunStore();
  const contexts = options.contexts ?? new Map<string, MemoryToolContext>();
  const toolContext = (runId: string) => {
    let context = contexts.get(runId);
    if (!context) {
      context = createMemoryToolContext({ files: store.initialFiles(runId) });
      contexts.set(runId, context);
    }
    return context;
  };
  const host = createRunHost({
    store: options.wrapStore ? options.wrapStore(store) : store,
    createModel: (scenario) => {
      const model: Model = options.createModel
        ? options.createModel(scenario)
        : scenario.model.kind === "scripted"
          ? createScriptedModel(scenario.model.turns)
          : {
              complete: async () => {
                throw new RuntimeError(
                  "model_unavailable",
                  "The in-memory host runs scripted scenarios only.",
                );
              },
            };
      return options.wrapModel ? options.wrapModel(model) : model;
    },
    createToolContext: (runId, signal) => ({ ...toolContext(runId), signal }),
    leaseMs: options.leaseMs ?? 60_000,
    requireDistinctApprover: options.requireDistinctApprover,
    instanceId: options.instanceId,
    checkScenario: options.checkScenario,
    prepareTools: options.prepareTools,
    log: options.log,
    now: options.now,
    deadlineTimers: options.deadlineTimers,
    agents: options.agents,
    policies: options.policies,
    grants: options.grants,
  });
  return { ...host, store, toolContext };
}
