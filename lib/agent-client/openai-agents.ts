/**
 * The OpenAI Agents SDK adapter (docs/agents.md): wraps an agent's function
 * tools so that the calls of one model response go through one turn of the
 * playground. The SDK has no hook that hands a response's calls over
 * together, but it starts all of them at once (unless
 * `toolExecution.maxFunctionToolConcurrency` limits it): every call reaches
 * its tool's `invoke` before any timer fires. So the calls that arrive
 * before the next timer are one batch, submitted as one turn with their
 * call ids and raw argument text; each `invoke` then answers its own call's
 * outcome. The SDK's own approval (`needsApproval`) is switched off: the
 * playground decides, in the inbox, and the wait happens inside `invoke`.
 */
import type { FunctionTool, RunContext } from "@openai/agents";
import { AgentClientError } from "./agent-client-error";
import type { ReleasedCall, ToolCallInput } from "./agent-client-types";
import type { AgentRun } from "./agent-run";
import { refusalForModel, toolResultForModel } from "./tool-result-for-model";

type ToolCallDetails = Parameters<FunctionTool["invoke"]>[2];

interface Waiting {
  call: ToolCallInput;
  tool: FunctionTool;
  runContext: RunContext<unknown>;
  details: ToolCallDetails;
  resolve(text: string): void;
  reject(error: unknown): void;
}

// biome-ignore lint/suspicious/noExplicitAny: the SDK's tools are generic in their context and parameters.
type AnyFunctionTool = FunctionTool<any, any, any>;

export function playgroundTools<TOOLS extends AnyFunctionTool[]>(run: AgentRun, tools: TOOLS): TOOLS {
  let batch: Waiting[] | null = null;
  // Turns follow each other: a batch waits until the previous one has its outcome.
  let previous: Promise<void> = Promise.resolve();

  const submit = async (waiting: Waiting[]) => {
    const byId = new Map(waiting.map((entry) => [entry.call.id, entry]));
    const execute = async (released: ReleasedCall, { signal }: { signal: AbortSignal }) => {
      const entry = byId.get(released.callId);
      if (!entry) throw new Error(`No call ${released.callId} in this batch.`);
      return entry.tool.invoke(entry.runContext, released.rawArguments, { ...entry.details, signal });
    };
    const signal = waiting.find((entry) => entry.details?.signal)?.details?.signal;
    try {
      const outcome = await run.runTurn(
        waiting.map((entry) => entry.call),
        { execute, ...(signal ? { signal } : {}) },
      );
      for (const call of outcome.calls) byId.get(call.callId)?.resolve(toolResultForModel(call).text);
    } catch (error) {
      if (error instanceof AgentClientError && error.code === "refused") {
        for (const entry of waiting) entry.resolve(refusalForModel(error.message));
      } else {
        for (const entry of waiting) entry.reject(error);
      }
    }
  };

  const wrap = (tool: AnyFunctionTool): AnyFunctionTool => {
    // The wait for a person happens inside invoke: a tool timeout would cut it short.
    const { timeoutMs: _timeoutMs, ...rest } = tool;
    return {
      ...rest,
      needsApproval: async () => false,
      invoke: (runContext, input, details) =>
        new Promise<string>((resolve, reject) => {
          const call = {
            id: details?.toolCall?.callId ?? crypto.randomUUID(),
            name: tool.name,
            arguments: input,
          };
          if (!batch) {
            const waiting: Waiting[] = [];
            batch = waiting;
            setTimeout(() => {
              batch = null;
              previous = previous.then(() => submit(waiting));
            }, 0);
          }
          batch.push({ call, tool, runContext, details, resolve, reject });
        }),
    };
  };
  return tools.map(wrap) as TOOLS;
}
