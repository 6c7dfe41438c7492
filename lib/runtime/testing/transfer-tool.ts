import type { ToolDefinition } from "../tools/tool-definition";

/**
 * A code-defined tool with a predicate approval policy, for tests: a
 * `transfer` is gated only above 100. Its executor does nothing.
 */
export const transferTool: ToolDefinition = {
  name: "transfer",
  description: "Move money; amounts above 100 need approval",
  parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
  resourceClass: "write",
  effect: "NON_IDEMPOTENT_WRITE",
  approval: (args) => Number(args.amount) > 100,
  execute: async () => ({}),
};
