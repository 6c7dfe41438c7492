/**
 * The payload size of a batch, as limited by `maxBatchPayloadBytes`
 * (docs/planning-rules.md#the-rules-in-order-the-first-that-applies-wins, rule 2).
 */
import type { ToolCall } from "../types";

/**
 * UTF-8 byte length of `JSON.stringify(calls.map(c => ({ id, name, arguments })))`:
 * the raw calls as the model emitted them, arguments as raw text, in batch
 * order. `batchIndex` is not counted (the model did not send it).
 */
export function measureBatchPayloadBytes(
  calls: ReadonlyArray<Pick<ToolCall, "id" | "name" | "arguments">>,
): number {
  const payload = JSON.stringify(
    calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
  );
  return new TextEncoder().encode(payload).byteLength;
}
