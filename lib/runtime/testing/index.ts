/**
 * Test doubles of the runtime's ports. Import from "lib/runtime/testing" in
 * tests and demos only; production code wires real implementations.
 */

export { createToolCallBatch, type ToolCallSketch } from "./create-tool-call-batch";
export {
  createInMemoryMemoryStore,
  createInMemoryTaskStore,
  type InMemoryMemoryStore,
  type InMemoryTaskStore,
} from "./memory-stores";
export { createMemoryToolContext, type MemoryToolContext } from "./memory-tool-context";
export { createMemoryWorkspace, type MemoryWorkspace } from "./memory-workspace";
export { transferTool } from "./transfer-tool";
