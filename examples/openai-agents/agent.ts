/**
 * An OpenAI Agents SDK agent whose tool calls run through the playground
 * (docs/agents.md): its tools are ordinary `tool()`s, wrapped by
 * `playgroundTools` so a response's calls are one turn. Its three reads run
 * as one wave; its write waits in the inbox until a person approves it.
 *
 *   PLAYGROUND_TOKEN=tp_… node --import tsx examples/openai-agents/agent.ts \
 *     --server http://127.0.0.1:3000 --model-url http://127.0.0.1:4010/v1 --folder ./notes
 */
import { Agent, OpenAIChatCompletionsModel, run as runAgent, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { connect } from "../../lib/agent-client";
import { playgroundTools } from "../../lib/agent-client/openai-agents";
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
setTracingDisabled(true); // offline: no traces sent to OpenAI
const run = await connect({ url: server, token }).openRun({
  name: "OpenAI Agents SDK example",
  agent: { name: "openai-agents-example", version: "1" },
  tools: DECLARATIONS,
  limits: { maxParallelToolCalls: 3 },
});
console.log(`run ${run.id}`);

const agent = new Agent({
  name: "notes",
  instructions: "You summarise notes into files.",
  model: new OpenAIChatCompletionsModel(new OpenAI({ baseURL: modelUrl, apiKey: "offline" }), "fake"),
  tools: playgroundTools(run, [
    tool({
      name: "read_local_file",
      description: READ_DESCRIPTION,
      parameters: z.object({ path: z.string() }),
      execute: (input) => readLocalFile(folder, input),
    }),
    tool({
      name: "write_local_file",
      description: WRITE_DESCRIPTION,
      parameters: z.object({ path: z.string(), content: z.string() }),
      execute: (input) => writeLocalFile(folder, input),
    }),
  ]),
});

const result = await runAgent(agent, TASK);
const text = String(result.finalOutput ?? "");
const ended = await run.finish(text);
console.log(`finished ${ended.status}: ${text}`);
