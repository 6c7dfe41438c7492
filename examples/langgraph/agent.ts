/**
 * A LangGraph.js agent whose tool calls run through the playground
 * (docs/agents.md): the graph is the usual model ⇄ tools loop, with
 * `playgroundToolNode` where `ToolNode` would be. Its three reads run as one
 * wave; its write waits in the inbox until a person approves it.
 *
 *   PLAYGROUND_TOKEN=tp_… node --import tsx examples/langgraph/agent.ts \
 *     --server http://127.0.0.1:3000 --model-url http://127.0.0.1:4010/v1 --folder ./notes
 */
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";
import { connect } from "../../lib/agent-client";
import { playgroundToolNode } from "../../lib/agent-client/langgraph";
import {
  DECLARATIONS,
  READ_DESCRIPTION,
  readCommandLine,
  readLocalFile,
  TASK,
  WRITE_DESCRIPTION,
  writeLocalFile,
} from "../shared/local-files";

const { server, modelUrl, folder, token } = readCommandLine();
const run = await connect({ url: server, token }).openRun({
  name: "LangGraph example",
  agent: { name: "langgraph-example", version: "1" },
  tools: DECLARATIONS,
  limits: { maxParallelToolCalls: 3 },
});
console.log(`run ${run.id}`);

const tools = [
  tool((input) => readLocalFile(folder, input), {
    name: "read_local_file",
    description: READ_DESCRIPTION,
    schema: z.object({ path: z.string() }),
  }),
  tool((input) => writeLocalFile(folder, input), {
    name: "write_local_file",
    description: WRITE_DESCRIPTION,
    schema: z.object({ path: z.string(), content: z.string() }),
  }),
];
const model = new ChatOpenAI({
  model: "fake",
  apiKey: "offline",
  configuration: { baseURL: modelUrl },
}).bindTools(tools);

const graph = new StateGraph(MessagesAnnotation)
  .addNode("model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addNode("tools", playgroundToolNode(run, tools))
  .addEdge(START, "model")
  .addConditionalEdges("model", (state) => {
    const last = state.messages.at(-1);
    return last && "tool_calls" in last && Array.isArray(last.tool_calls) && last.tool_calls.length
      ? "tools"
      : END;
  })
  .addEdge("tools", "model")
  .compile();

const { messages } = await graph.invoke({ messages: [new HumanMessage(TASK)] });
const answer = String(messages.at(-1)?.content ?? "");
const ended = await run.finish(answer);
console.log(`finished ${ended.status}: ${answer}`);
