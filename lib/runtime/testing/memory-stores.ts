/**
 * In-memory `MemoryStore` and `TaskStore` for tests and demos.
 */
import type { MemoryStore, TaskStore } from "../tools/workspace";

/** A `MemoryStore` whose contents a test can read synchronously. */
export interface InMemoryMemoryStore extends MemoryStore {
  /** A copy of every stored entry. */
  snapshot(): Record<string, unknown>;
}

/** A `TaskStore` whose tasks a test can read synchronously. */
export interface InMemoryTaskStore extends TaskStore {
  /** Every created task, in creation order. */
  list(): Array<{ id: string; title: string }>;
}

/**
 * Creates an in-memory key-value store seeded with `initialEntries`. Values
 * are deep-copied on the way in and out, as a database would, so a caller
 * mutating a value it stored or read never changes what is stored.
 */
export function createInMemoryMemoryStore(initialEntries: Record<string, unknown> = {}): InMemoryMemoryStore {
  const entries = new Map<string, unknown>(Object.entries(structuredClone(initialEntries)));
  return {
    async get(key) {
      return entries.has(key) ? structuredClone(entries.get(key)) : undefined;
    },
    async set(key, value) {
      entries.set(key, structuredClone(value));
    },
    snapshot() {
      return structuredClone(Object.fromEntries(entries));
    },
  };
}

/** Creates an in-memory task list; ids are "task-1", "task-2", … in creation order. */
export function createInMemoryTaskStore(): InMemoryTaskStore {
  const tasks: Array<{ id: string; title: string }> = [];
  return {
    async create(title) {
      const task = { id: `task-${tasks.length + 1}`, title };
      tasks.push(task);
      return { ...task };
    },
    list() {
      return tasks.map((task) => ({ ...task }));
    },
  };
}
