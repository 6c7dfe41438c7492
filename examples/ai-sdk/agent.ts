/**
 * A Vercel AI SDK agent whose tool calls run through the playground
 * (docs/agents.md): its tools are ordinary `tool()`s with `execute`, and
 * `playgroundGenerateText` takes the place of `generateText`'s own loop.
 * Its three reads run as one wave; its write waits in the inbox until a
 * person approves it.
 *
 *   PLAYGROUND_TOKEN=tp_… node --import tsx examples/ai-sdk/agent.ts \
 *     --server http://127.0.0.1:3000 --model-url http://127.0.0.1:4010/v1 --folder ./notes
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { tool } from "ai";
import { z } from "zod";
import { connect } from "../../lib/agent-client";
import { playgroundGenerateText } from "../../lib/agent-client/ai-sdk";
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
  name: "AI SDK example",
  agent: { name: "ai-sdk-example", version: "1" },
  tools: DECLARATIONS,
  limits: { maxParallelToolCalls: 3 },
});
console.log(`run ${run.id}`);

const provider = createOpenAICompatible({ name: "offline", baseURL: modelUrl, apiKey: "offline" });

const { text } = await playgroundGenerateText({
  run,
  model: provider.chatModel("fake"),
  prompt: TASK,
  tools: {
    read_local_file: tool({
      description: READ_DESCRIPTION,
      inputSchema: z.object({ path: z.string() }),
      execute: (input) => readLocalFile(folder, input),
    }),
    write_local_file: tool({
      description: WRITE_DESCRIPTION,
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: (input) => writeLocalFile(folder, input),
    }),
  },
});

const ended = await run.finish(text);
console.log(`finished ${ended.status}: ${text}`);
