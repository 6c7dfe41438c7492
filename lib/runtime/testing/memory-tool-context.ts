/**
 * A complete in-memory `ToolContext` for tests and demos.
 */
import type { ToolContext } from "../tools/workspace";
import {
  createInMemoryMemoryStore,
  createInMemoryTaskStore,
  type InMemoryMemoryStore,
  type InMemoryTaskStore,
} from "./memory-stores";
import { createMemoryWorkspace, type MemoryWorkspace } from "./memory-workspace";

/** A `ToolContext` whose stores expose their contents to the test. */
export interface MemoryToolContext extends ToolContext {
  workspace: MemoryWorkspace;
  memory: InMemoryMemoryStore;
  tasks: InMemoryTaskStore;
}

/**
 * Creates a `ToolContext` over fresh in-memory stores seeded with `files` and
 * `memory`. `signal` defaults to one that never aborts.
 */
export function createMemoryToolContext(
  options: { files?: Record<string, string>; memory?: Record<string, unknown>; signal?: AbortSignal } = {},
): MemoryToolContext {
  return {
    workspace: createMemoryWorkspace(options.files),
    memory: createInMemoryMemoryStore(options.memory),
    tasks: createInMemoryTaskStore(),
    signal: options.signal ?? new AbortController().signal,
  };
}
