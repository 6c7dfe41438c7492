/**
 * Test doubles of the runtime's ports. Import from "lib/runtime/testing" in
 * tests and demos only; production code wires real implementations.
 */

export { createToolCallBatch, type ToolCallSketch } from "./create-tool-call-batch";
export { createFaultRegistry, type FaultRegistry, withInjectedFaults } from "./faulty-run-store";
export { createMemoryAgentMailbox } from "./memory-agent-mailbox";
export { createMemoryGrantStore } from "./memory-grant-store";
export { createMemoryRunHost, type MemoryRunHost } from "./memory-run-host";
export { createMemoryRunStore, type MemoryRunStore } from "./memory-run-store";
export {
  createInMemoryMemoryStore,
  createInMemoryTaskStore,
  type InMemoryMemoryStore,
  type InMemoryTaskStore,
} from "./memory-stores";
export { createMemoryToolContext, type MemoryToolContext } from "./memory-tool-context";
export { createMemoryWorkspace, type MemoryWorkspace } from "./memory-workspace";
export { buildScenario, type MemoryHarness, openMemoryHarness } from "./scenario-harness";
export { transferTool } from "./transfer-tool";
