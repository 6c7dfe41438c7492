/**
 * The Vercel AI SDK adapter (docs/agents.md): a loop around `generateText`
 * that replaces the SDK's own tool loop. The tools are the agent's usual
 * ones; the model sees them without `execute` (and without `needsApproval`),
 * so each step ends at its tool calls. Those calls — the step's parallel
 * calls together — go through one turn of the playground, and the turn's
 * outcome becomes the step's tool results: a denial as `execution-denied`
 * with the approver's reply, an invalidation or failure as `error-text`.
 */
import { generateText, type ModelMessage, type ToolResultPart, type ToolSet } from "ai";
import { AgentClientError } from "./agent-client-error";
import type { CallOutcomeView, ReleasedCall } from "./agent-client-types";
import type { AgentRun } from "./agent-run";
import { refusalForModel, toolResultForModel } from "./tool-result-for-model";

type GenerateTextOptions = Parameters<typeof generateText>[0];
/** One step's `generateText` result. */
type StepResult = Awaited<ReturnType<typeof generateText>>;

export type PlaygroundGenerateTextOptions<TOOLS extends ToolSet> = Omit<
  GenerateTextOptions,
  "tools" | "prompt" | "messages" | "abortSignal" | "stopWhen"
> & {
  run: AgentRun;
  tools: TOOLS;
  /** The conversation so far; or `prompt`, a user message. */
  messages?: ModelMessage[];
  prompt?: string;
  /** At most this many model steps (default 20). */
  maxSteps?: number;
  abortSignal?: AbortSignal;
};

export interface PlaygroundGenerateTextResult {
  /** The model's last text: its answer. */
  text: string;
  /** Every step's `generateText` result, in order. */
  steps: StepResult[];
  /** The whole conversation, tool results included: what to send with the next user message. */
  messages: ModelMessage[];
}

export async function playgroundGenerateText<TOOLS extends ToolSet>(
  options: PlaygroundGenerateTextOptions<TOOLS>,
): Promise<PlaygroundGenerateTextResult> {
  const { run, tools, messages: initial, prompt, maxSteps = 20, abortSignal, ...settings } = options;
  const messages: ModelMessage[] = [
    ...(initial ?? []),
    ...(prompt ? [{ role: "user" as const, content: prompt }] : []),
  ];
  // The model is offered each tool without its execute: the playground decides when (and whether) it runs.
  const offered = Object.fromEntries(
    Object.entries(tools).map(([name, { execute: _execute, needsApproval: _needsApproval, ...rest }]) => [
      name,
      rest,
    ]),
  ) as ToolSet;
  const execute = async (call: ReleasedCall, { signal }: { signal: AbortSignal }) => {
    const run = tools[call.name]?.execute;
    if (!run) throw new Error(`No tool ${call.name} with an execute function.`);
    const output = await run(call.input, {
      toolCallId: call.callId,
      messages,
      abortSignal: signal,
      context: undefined as never,
    });
    return lastOf(output);
  };

  const steps: StepResult[] = [];
  for (let index = 0; index < maxSteps; index++) {
    // The caller's settings, with the tools offered without execute and the conversation so far.
    const step = (await generateText({
      ...settings,
      tools: offered,
      messages,
      ...(abortSignal ? { abortSignal } : {}),
    } as unknown as GenerateTextOptions)) as StepResult;
    steps.push(step);
    messages.push(...step.response.messages);
    if (step.toolCalls.length === 0) return { text: step.text, steps, messages };

    const calls = step.toolCalls.map((call) => ({
      id: call.toolCallId,
      name: call.toolName,
      arguments: (call.input ?? {}) as Record<string, unknown>,
    }));
    let results: ToolResultPart[];
    try {
      const outcome = await run.runTurn(calls, {
        execute,
        text: step.text || null,
        usage: usageOf(step),
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
      results = outcome.calls.map(toToolResultPart);
    } catch (error) {
      if (!(error instanceof AgentClientError) || error.code !== "refused") throw error;
      // Refused whole, nothing ran: each call is told why, and the model answers again.
      results = calls.map((call) => ({
        type: "tool-result",
        toolCallId: call.id,
        toolName: call.name,
        output: { type: "error-text", value: refusalForModel(error.message) },
      }));
    }
    messages.push({ role: "tool", content: results });
  }
  throw new AgentClientError("rejected", `The model did not answer within ${maxSteps} steps.`);
}

/** One call of a turn's outcome as the step's tool result. */
export function toToolResultPart(call: CallOutcomeView): ToolResultPart {
  const told = toolResultForModel(call);
  const base = { type: "tool-result" as const, toolCallId: call.callId, toolName: call.name };
  if (told.kind === "denied") return { ...base, output: { type: "execution-denied", reason: told.reason } };
  if (told.kind === "error") return { ...base, output: { type: "error-text", value: told.text } };
  return { ...base, output: { type: "text", value: told.text } };
}

function usageOf(step: StepResult) {
  const { inputTokens, outputTokens, totalTokens } = step.usage;
  return inputTokens !== undefined && outputTokens !== undefined && totalTokens !== undefined
    ? { promptTokens: inputTokens, completionTokens: outputTokens, totalTokens }
    : null;
}

/** A tool's execute may stream its output (an async iterable): its last value is the result. */
async function lastOf(output: unknown): Promise<unknown> {
  if (output && typeof output === "object" && Symbol.asyncIterator in output) {
    let last: unknown;
    for await (const value of output as AsyncIterable<unknown>) last = value;
    return last;
  }
  return output;
}
