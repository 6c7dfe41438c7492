/**
 * Builds batches of `ToolCall`s tersely for tests and demos.
 */
import type { ToolCall } from "../types";

/** One call of a test batch: `arguments` as raw text, or an object to encode as JSON. */
export interface ToolCallSketch {
  name: string;
  arguments?: string | Record<string, unknown>;
  id?: string;
}

/**
 * Turns sketches into a batch: `batchIndex` is the array position, `id`
 * defaults to "call-<index>", object arguments are `JSON.stringify`-ed, a
 * string is kept as raw text exactly (malformed on purpose if the test wants),
 * and missing arguments become "{}".
 */
export function createToolCallBatch(sketches: readonly ToolCallSketch[]): ToolCall[] {
  return sketches.map((sketch, index) => ({
    id: sketch.id ?? `call-${index}`,
    name: sketch.name,
    arguments:
      typeof sketch.arguments === "string" ? sketch.arguments : JSON.stringify(sketch.arguments ?? {}),
    batchIndex: index,
  }));
}
