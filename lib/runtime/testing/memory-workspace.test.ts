import { describe, expect, it } from "vitest";
import { createInMemoryMemoryStore, createInMemoryTaskStore } from "./memory-stores";
import { createMemoryWorkspace } from "./memory-workspace";

describe("createMemoryWorkspace", () => {
  it("normalises and refuses initial paths like a tool would", () => {
    expect(createMemoryWorkspace({ "a/./b.txt": "x" }).snapshot()).toEqual({ "a/b.txt": "x" });
    expect(() => createMemoryWorkspace({ "../x": "y" })).toThrow("escapes");
  });

  it("lists the files under a directory in sorted order, or all of them for the root", async () => {
    const workspace = createMemoryWorkspace({ "b.txt": "", "a/z.txt": "", "a/b/c.txt": "", "ab.txt": "" });
    expect(await workspace.list("")).toEqual(["a/b/c.txt", "a/z.txt", "ab.txt", "b.txt"]);
    expect(await workspace.list("a")).toEqual(["a/b/c.txt", "a/z.txt"]);
    expect(await workspace.list("missing")).toEqual([]);
  });

  it("reads, writes and deletes", async () => {
    const workspace = createMemoryWorkspace();
    expect(await workspace.read("a.txt")).toBeUndefined();
    await workspace.write("a.txt", "hello");
    expect(await workspace.read("a.txt")).toBe("hello");
    expect(await workspace.delete("a.txt")).toBe(true);
    expect(await workspace.delete("a.txt")).toBe(false);
  });

  it("searches lines case-sensitively, ordered by path then line, 1-based", async () => {
    const workspace = createMemoryWorkspace({ "b.md": "milk\r\nbread\nMilk", "a.md": "no\nmilkshake" });
    expect(await workspace.search("milk")).toEqual([
      { path: "a.md", line: 2, text: "milkshake" },
      { path: "b.md", line: 1, text: "milk" },
    ]);
  });
});

describe("in-memory stores", () => {
  it("memory store copies values in and out", async () => {
    const memory = createInMemoryMemoryStore({ seeded: 1 });
    const value = { list: [1] };
    await memory.set("k", value);
    value.list.push(2);
    expect(await memory.get("k")).toEqual({ list: [1] });
    expect(await memory.get("missing")).toBeUndefined();
    expect(memory.snapshot()).toEqual({ seeded: 1, k: { list: [1] } });
  });

  it("task store numbers tasks in creation order", async () => {
    const tasks = createInMemoryTaskStore();
    expect(await tasks.create("first")).toEqual({ id: "task-1", title: "first" });
    expect(await tasks.create("second")).toEqual({ id: "task-2", title: "second" });
    expect(tasks.list().map((task) => task.title)).toEqual(["first", "second"]);
  });
});
