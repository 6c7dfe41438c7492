import { randomUUID } from "node:crypto";
import { and, eq, like } from "drizzle-orm";
import type { MemoryStore, TaskStore, ToolContext, Workspace } from "@/lib/runtime";
import type { Db } from "../client";
import { memoryEntries, tasks, workspaceFiles } from "../schema";

// Code-unit order, as the Workspace port promises (SQL collation order may differ).
const byCodeUnits = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

/** A run's virtual workspace in `workspace_files`: file tools never touch the host file system. */
export function createRunWorkspace(db: Db, runId: string): Workspace {
  const ofRun = eq(workspaceFiles.runId, runId);
  return {
    async read(path) {
      const [row] = await db
        .select({ content: workspaceFiles.content })
        .from(workspaceFiles)
        .where(and(ofRun, eq(workspaceFiles.path, path)));
      return row?.content;
    },
    async list(dir) {
      const prefix = dir === "" ? "" : `${dir}/`;
      const escaped = prefix.replace(/[\\%_]/g, (character) => `\\${character}`);
      const rows = await db
        .select({ path: workspaceFiles.path })
        .from(workspaceFiles)
        .where(and(ofRun, like(workspaceFiles.path, `${escaped}%`)));
      return rows.map((row) => row.path).sort(byCodeUnits);
    },
    async write(path, content) {
      await db
        .insert(workspaceFiles)
        .values({ runId, path, content })
        .onConflictDoUpdate({
          target: [workspaceFiles.runId, workspaceFiles.path],
          set: { content, updatedAt: new Date() },
        });
    },
    async delete(path) {
      const deleted = await db
        .delete(workspaceFiles)
        .where(and(ofRun, eq(workspaceFiles.path, path)))
        .returning({ path: workspaceFiles.path });
      return deleted.length > 0;
    },
    async search(query) {
      const rows = await db.select().from(workspaceFiles).where(ofRun);
      return rows
        .sort((left, right) => byCodeUnits(left.path, right.path))
        .flatMap((row) =>
          row.content
            .split(/\r?\n/)
            .flatMap((text, index) =>
              text.includes(query) ? [{ path: row.path, line: index + 1, text }] : [],
            ),
        );
    },
  };
}

function createRunMemory(db: Db, runId: string): MemoryStore {
  return {
    async get(key) {
      const [row] = await db
        .select({ value: memoryEntries.value })
        .from(memoryEntries)
        .where(and(eq(memoryEntries.runId, runId), eq(memoryEntries.key, key)));
      return row ? row.value : undefined;
    },
    async set(key, value) {
      await db
        .insert(memoryEntries)
        .values({ runId, key, value: value ?? null })
        .onConflictDoUpdate({
          target: [memoryEntries.runId, memoryEntries.key],
          set: { value: value ?? null, updatedAt: new Date() },
        });
    },
  };
}

function createRunTasks(db: Db, runId: string): TaskStore {
  return {
    async create(title) {
      const id = randomUUID();
      await db.insert(tasks).values({ id, runId, title });
      return { id, title };
    },
  };
}

/** The tools' view of one run: its workspace, memory and tasks, all in the database. */
export function createRunToolContext(db: Db, runId: string, signal: AbortSignal): ToolContext {
  return {
    workspace: createRunWorkspace(db, runId),
    memory: createRunMemory(db, runId),
    tasks: createRunTasks(db, runId),
    signal,
  };
}
