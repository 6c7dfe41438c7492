import "server-only";
import { z } from "zod";
import { formatIssuePath, type ModelCompletion } from "@/lib/runtime";

/**
 * The part of a Chat Completions reply a run uses, checked: an endpoint's 200
 * can still be anything (an HTML page, a proxy's JSON, a tool call without
 * `function`), and what cannot be read is the model's failure, not ours.
 * Arguments stay the exact string the model sent (preflight judges it).
 */
const functionCallSchema = z.object({
  id: z.string().nullish(),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});
const customCallSchema = z.object({
  id: z.string().nullish(),
  type: z.literal("custom"),
  custom: z.object({ name: z.string().min(1), input: z.string() }),
});
// The endpoint's own accounting: what cannot be read of it is left out, never a failed run.
const usageSchema = z
  .object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() })
  .nullish()
  .catch(null);

const chatCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(z.union([customCallSchema, functionCallSchema], { error: "must be a function tool call" }))
            .nullish(),
        }),
      }),
    )
    .min(1),
  usage: usageSchema,
});

/** The completion in a reply, or what is wrong with the reply (its JSON path and why). */
export function decodeChatCompletion(
  reply: unknown,
): { ok: true; completion: ModelCompletion } | { ok: false; problem: string } {
  if (typeof reply === "string") return { ok: false, problem: "a body that is not JSON" };
  const parsed = chatCompletionSchema.safeParse(reply);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const where = issue ? formatIssuePath(issue.path) : "";
    return {
      ok: false,
      problem: `a reply that is not a chat completion (${where || "the body"}: ${issue?.message})`,
    };
  }
  const [choice] = parsed.data.choices;
  const message = choice?.message;
  const usage = parsed.data.usage;
  return {
    ok: true,
    completion: {
      text: message?.content ?? null,
      calls: (message?.tool_calls ?? []).map((call) => ({
        ...(call.id ? { id: call.id } : {}),
        ...(call.type === "custom"
          ? { name: call.custom.name, arguments: call.custom.input }
          : { name: call.function.name, arguments: call.function.arguments }),
      })),
      usage: usage
        ? {
            promptTokens: usage.prompt_tokens,
            completionTokens: usage.completion_tokens,
            totalTokens: usage.total_tokens,
          }
        : null,
    },
  };
}
