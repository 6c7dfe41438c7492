/** The preset list's value (and `?preset=`) for the prompt-a-model template. */
export const PROMPT_TEMPLATE_ID = "prompt-template";

/**
 * A scenario that prompts a real model instead of replaying a script. Not a
 * preset: it needs a model endpoint the server's operator configured, which
 * `endpoint` names (the first configured one, when there is one).
 */
export function buildPromptTemplate(endpoint: string) {
  return {
    name: "prompt a model",
    limits: { maxParallelToolCalls: 8 },
    workspace: { "notes/todo.md": "- buy milk\n- call Alice\n" },
    model: {
      kind: "openai-compatible",
      endpoint,
      system: "You are a careful assistant. Use the tools; finish when done.",
      prompt: "Read notes/todo.md, add '- water plants' to it, then finish.",
    },
  };
}
