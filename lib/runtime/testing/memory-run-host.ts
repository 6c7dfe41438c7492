import { RuntimeError } from "../errors";
import { createRunHost, type RunHost } from "../host/run-host";
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
 * A run host over the in-memory store: scripted scenarios run exactly as on
 * the server, without a database. `wrapStore` puts a decorator between the
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
      if (scenario.model.kind === "scripted") return createScriptedModel(scenario.model.turns);
      return {
        complete: async () => {
          throw new RuntimeError("model_unavailable", "The in-memory host runs scripted scenarios only.");
        },
      };
    },
    createToolContext: (runId, signal) => ({ ...toolContext(runId), signal }),
    leaseMs: options.leaseMs ?? 60_000,
    requireDistinctApprover: options.requireDistinctApprover,
  });
  return { ...host, store, toolContext };
}
