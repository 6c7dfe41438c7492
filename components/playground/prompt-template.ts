/**
 * A scenario that prompts a real model instead of replaying a script. Not a
 * preset: it needs an endpoint and a key that only the user has.
 */
export const PROMPT_TEMPLATE = {
  name: "prompt a model",
  limits: { maxParallelToolCalls: 8 },
  workspace: { "notes/todo.md": "- buy milk\n- call Alice\n" },
  model: {
    kind: "openai-compatible",
    baseURL: "http://127.0.0.1:11434/v1",
    model: "llama3.1",
    apiKeyEnv: "OPENAI_API_KEY",
    system: "You are a careful assistant. Use the tools; finish when done.",
    prompt: "Read notes/todo.md, add '- water plants' to it, then finish.",
  },
};
