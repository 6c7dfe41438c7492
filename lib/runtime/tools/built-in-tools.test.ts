import { describe, expect, it } from "vitest";
import { ToolError } from "../errors";
import { createMemoryToolContext } from "../testing";
import { BUILT_IN_TOOLS } from "./built-in-tools";
import type { ToolDefinition } from "./tool-definition";

function getTool(name: string): ToolDefinition {
  const tool = BUILT_IN_TOOLS.find((candidate) => candidate.name === name);
  if (tool === undefined) {
    throw new Error(`no built-in ${name}`);
  }
  return tool;
}

describe("file tools", () => {
  it("read_file returns the normalised path and content", async () => {
    const context = createMemoryToolContext({ files: { "notes/todo.md": "buy milk" } });
    await expect(getTool("read_file").execute({ path: "notes/./todo.md" }, context)).resolves.toEqual({
      path: "notes/todo.md",
      content: "buy milk",
    });
  });

  it("read_file of a missing file is a ToolError naming it", async () => {
    const context = createMemoryToolContext();
    const reading = getTool("read_file").execute({ path: "missing.txt" }, context);
    await expect(reading).rejects.toBeInstanceOf(ToolError);
    await expect(reading).rejects.toThrow('no such file: "missing.txt"');
  });

  it.each(["../x", "/etc/passwd", "a/../../x", "%2e%2e/x"])(
    "every file tool refuses the escaping path %j before touching the workspace",
    async (path) => {
      const context = createMemoryToolContext({ files: { x: "inside" } });
      for (const [name, args] of [
        ["read_file", { path }],
        ["write_file", { path, content: "pwned" }],
        ["delete_file", { path }],
        ["list_files", { dir: path }],
      ] as const) {
        await expect(getTool(name).execute(args, context)).rejects.toBeInstanceOf(ToolError);
      }
      expect(context.workspace.snapshot()).toEqual({ x: "inside" });
    },
  );

  it("list_files lists everything, or one directory", async () => {
    const context = createMemoryToolContext({ files: { "a/1.txt": "", "a/2.txt": "", "b.txt": "" } });
    await expect(getTool("list_files").execute({}, context)).resolves.toEqual({
      dir: "",
      files: ["a/1.txt", "a/2.txt", "b.txt"],
    });
    await expect(getTool("list_files").execute({ dir: "a/" }, context)).resolves.toEqual({
      dir: "a",
      files: ["a/1.txt", "a/2.txt"],
    });
  });

  it("search_files returns matching lines", async () => {
    const context = createMemoryToolContext({ files: { "todo.md": "buy milk\nsell bread" } });
    await expect(getTool("search_files").execute({ query: "bread" }, context)).resolves.toEqual({
      query: "bread",
      matches: [{ path: "todo.md", line: 2, text: "sell bread" }],
    });
  });

  it("write_file stores the content and reports its UTF-8 size", async () => {
    const context = createMemoryToolContext();
    await expect(
      getTool("write_file").execute({ path: "./a.txt", content: "h\u00e9" }, context),
    ).resolves.toEqual({
      path: "a.txt",
      bytes: 3,
    });
    expect(context.workspace.snapshot()).toEqual({ "a.txt": "h\u00e9" });
  });

  it("delete_file removes a file and fails for a missing one", async () => {
    const context = createMemoryToolContext({ files: { "a.txt": "x" } });
    await expect(getTool("delete_file").execute({ path: "a.txt" }, context)).resolves.toEqual({
      path: "a.txt",
      deleted: true,
    });
    await expect(getTool("delete_file").execute({ path: "a.txt" }, context)).rejects.toThrow("no such file");
  });

  it("refuses to act once the signal has aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const context = createMemoryToolContext({ signal: controller.signal });
    await expect(getTool("write_file").execute({ path: "a.txt", content: "x" }, context)).rejects.toThrow(
      "aborted",
    );
    expect(context.workspace.snapshot()).toEqual({});
  });

  it("defends against unchecked arguments", async () => {
    const context = createMemoryToolContext();
    await expect(getTool("read_file").execute({ path: 7 }, context)).rejects.toThrow(
      "path: must be text (a JSON string)",
    );
  });
});

describe("a file tool's path, checked before its call is planned", () => {
  const problems = (name: string, args: Record<string, unknown>) =>
    getTool(name).checkArguments?.(args) ?? [];

  it("passes a path written as it resolves, and the root's own spellings for list_files", () => {
    expect(problems("write_file", { path: "docs/a.md", content: "" })).toEqual([]);
    for (const dir of ["", ".", "./", "docs"]) expect(problems("list_files", { dir })).toEqual([]);
    expect(problems("list_files", {})).toEqual([]);
  });

  it("refuses one that resolves elsewhere, naming the path it resolves to", () => {
    for (const [name, written, resolved] of [
      ["write_file", "docs/../a.txt", '"a.txt"'],
      ["read_file", "a//b.txt", '"a/b.txt"'],
      ["delete_file", "./a.txt", '"a.txt"'],
      ["list_files", "docs/..", '""'],
    ] as const) {
      const key = name === "list_files" ? "dir" : "path";
      expect(problems(name, { [key]: written })).toEqual([
        expect.stringContaining(`as the path it resolves to, ${resolved}`),
      ]);
    }
  });

  it("refuses one the tool could never use, before anyone is asked to approve it", () => {
    expect(problems("write_file", { path: "../escape.txt", content: "" })).toEqual([
      expect.stringContaining("escapes the workspace"),
    ]);
    expect(problems("delete_file", { path: "/etc/passwd" })).toEqual([expect.stringContaining("path:")]);
  });
});

describe("memory, task and terminal tools", () => {
  it("memory_set then memory_get round-trips a JSON value", async () => {
    const context = createMemoryToolContext();
    await expect(getTool("memory_set").execute({ key: "k", value: { n: [1, 2] } }, context)).resolves.toEqual(
      {
        key: "k",
      },
    );
    await expect(getTool("memory_get").execute({ key: "k" }, context)).resolves.toEqual({
      key: "k",
      value: { n: [1, 2] },
      found: true,
    });
  });

  it("memory_get of a missing key is found: false with a null value", async () => {
    const context = createMemoryToolContext();
    await expect(getTool("memory_get").execute({ key: "nope" }, context)).resolves.toEqual({
      key: "nope",
      value: null,
      found: false,
    });
  });

  it("task_create returns the created task", async () => {
    const context = createMemoryToolContext();
    await expect(getTool("task_create").execute({ title: "ship it" }, context)).resolves.toEqual({
      id: "task-1",
      title: "ship it",
    });
    expect(context.tasks.list()).toEqual([{ id: "task-1", title: "ship it" }]);
  });

  it("reply and finish echo their text", async () => {
    const context = createMemoryToolContext();
    await expect(getTool("reply").execute({ message: "hi" }, context)).resolves.toEqual({ message: "hi" });
    await expect(getTool("finish").execute({ summary: "done" }, context)).resolves.toEqual({
      summary: "done",
    });
  });
});
