/**
 * The peer: LangGraph JS with its Postgres checkpointer doing the same tool
 * calls in the same batches (each call its own task via `Send`, as its tool
 * nodes do), checkpointing every superstep. Measured in the same process and
 * the same run as ours, on the same Postgres server.
 */
import { Annotation, END, Send, START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { Shape } from "./shapes";

const State = Annotation.Root({
  step: Annotation<number>({ reducer: (_, next) => next, default: () => 0 }),
  results: Annotation<unknown[]>({ reducer: (all, more) => all.concat(more), default: () => [] }),
});

export interface LangGraphPeer {
  /** Runs `shape` once on a new thread; resolves with its wall time in ms. */
  run(shape: Shape): Promise<number>;
  close(): Promise<void>;
}

export async function openLangGraphPeer(url: string): Promise<LangGraphPeer> {
  const checkpointer = PostgresSaver.fromConnString(url, { schema: "langgraph_bench" });
  await checkpointer.setup();
  return {
    async run(shape) {
      const graph = new StateGraph(State)
        .addNode("agent", (state: typeof State.State) => ({ step: state.step + 1 }))
        .addNode("lookup", (input: { key: string }) => ({ results: [{ key: input.key, found: true }] }))
        .addEdge(START, "agent")
        .addConditionalEdges("agent", (state: typeof State.State) => {
          const size = shape.batches[state.step - 1];
          if (size === undefined) return END;
          return Array.from(
            { length: size },
            (_, index) => new Send("lookup", { key: `k${state.step}-${index}` }),
          );
        })
        .addEdge("lookup", "agent")
        .compile({ checkpointer });
      const started = performance.now();
      await graph.invoke(
        {},
        {
          configurable: { thread_id: crypto.randomUUID() },
          maxConcurrency: shape.cap,
          recursionLimit: shape.batches.length * 2 + 10,
        },
      );
      return performance.now() - started;
    },
    close: () => checkpointer.end(),
  };
}
