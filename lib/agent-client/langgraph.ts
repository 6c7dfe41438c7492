/**
 * The LangGraph.js adapter (docs/agents.md): a node that takes the place of
 * `ToolNode`. The last AI message's `tool_calls` go through one turn of the
 * playground (waves, barriers, the inbox), and the node returns one
 * `ToolMessage` per call, in the model's order. The graph needs no
 * `interrupt()`: a person's decision is waited for inside the turn. Replayed
 * from a checkpoint, the node sends the same calls again and gets the same
 * outcome back, so the checkpointer and the run never disagree on what ran.
 */
import { type BaseMessage, isAIMessage, ToolMessage } from "@langchain/core/messages";
import { AgentClientError } from "./agent-client-error";
import type { ReleasedCall } from "./agent-client-types";
import type { AgentRun } from "./agent-run";
import { refusalForModel, toolResultForModel } from "./tool-result-for-model";

/** A LangChain tool as `ToolNode` takes it: its name and `invoke`. */
export interface InvokableTool {
  name: string;
  invoke(input: never, config?: { signal?: AbortSignal }): Promise<unknown>;
}

export function playgroundToolNode(run: AgentRun, tools: readonly InvokableTool[]) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const execute = async (call: ReleasedCall, { signal }: { signal: AbortSignal }) => {
    const tool = byName.get(call.name);
    if (!tool) throw new Error(`No tool ${call.name} in this graph.`);
    const output = await tool.invoke(call.input as never, { signal });
    // A tool returning a ToolMessage (or any message) is reported by its content.
    return output && typeof output === "object" && "content" in output ? output.content : output;
  };

  return async (
    state: { messages: BaseMessage[] },
    config?: { signal?: AbortSignal },
  ): Promise<{ messages: ToolMessage[] }> => {
    const message = state.messages.at(-1);
    if (!message || !isAIMessage(message) || !message.tool_calls?.length) return { messages: [] };
    const calls = message.tool_calls.map((call, index) => ({
      id: call.id ?? `call_${index}`,
      name: call.name,
      arguments: call.args,
    }));
    const usage = message.usage_metadata;
    try {
      const outcome = await run.runTurn(calls, {
        execute,
        text: typeof message.content === "string" ? message.content : null,
        usage: usage
          ? {
              promptTokens: usage.input_tokens,
              completionTokens: usage.output_tokens,
              totalTokens: usage.total_tokens,
            }
          : null,
        ...(config?.signal ? { signal: config.signal } : {}),
      });
      return {
        messages: outcome.calls.map((call) => {
          const told = toolResultForModel(call);
          return new ToolMessage({
            content: told.text,
            tool_call_id: call.callId,
            name: call.name,
            status: told.kind === "result" ? "success" : "error",
          });
        }),
      };
    } catch (error) {
      if (!(error instanceof AgentClientError) || error.code !== "refused") throw error;
      // Refused whole, nothing ran: each call is told why, and the model answers again.
      return {
        messages: calls.map(
          (call) =>
            new ToolMessage({
              content: refusalForModel(error.message),
              tool_call_id: call.id,
              name: call.name,
              status: "error",
            }),
        ),
      };
    }
  };
}
