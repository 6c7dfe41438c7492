import { describe, expect, it } from "vitest";
import { ToolError } from "../errors";
import { MAX_WORKSPACE_PATH_LENGTH, normalizeWorkspacePath } from "./workspace";

describe("normalizeWorkspacePath", () => {
  it.each([
    ["a.txt", "a.txt"],
    ["a/b.txt", "a/b.txt"],
    ["a/./b", "a/b"],
    ["./a", "a"],
    ["a//b", "a/b"],
    ["a/b/", "a/b"],
    ["a/../b", "b"],
    ["a/b/../../c", "c"],
    ["notes/todo.md", "notes/todo.md"],
    ["100%.txt", "100%.txt"],
    ["a%20b.txt", "a%20b.txt"],
    ["caf\u00e9/men\u00fc.md", "caf\u00e9/men\u00fc.md"],
    ["..a/b..", "..a/b.."],
    ["...", "..."],
  ])("accepts %j as %j", (input, expected) => {
    expect(normalizeWorkspacePath(input)).toBe(expected);
  });

  it.each([
    ["", "workspace root"],
    [".", "workspace root"],
    ["a/..", "workspace root"],
    ["..", "escapes"],
    ["../x", "escapes"],
    ["a/../../x", "escapes"],
    ["a/b/../../../x", "escapes"],
    ["/etc/passwd", "relative"],
    ["/", "relative"],
    ["C:\\x", "backslash"],
    ["C:/x", "relative"],
    ["c:x", "relative"],
    ["\\\\server\\share", "backslash"],
    ["a\\b", "backslash"],
    ["a\u0000b", "NUL"],
    ["a\nb", "control character"],
    ["a\u007fb", "control character"],
    ["a\u0085b", "control character"],
    ["%2e%2e/x", "percent-encoded"],
    ["%2E%2E/x", "percent-encoded"],
    ["a/%2e%2e/b", "percent-encoded"],
    ["a%2fb", "percent-encoded"],
    ["..%2fx", "percent-encoded"],
    ["a%5cb", "percent-encoded"],
    ["a%00b", "percent-encoded"],
    ["%252e%252e/x", "percent-encoded"],
    ["a%252fb", "percent-encoded"],
    ["file:///etc/passwd", "relative"],
  ])("refuses %j (%s)", (input, reason) => {
    expect(() => normalizeWorkspacePath(input)).toThrow(ToolError);
    expect(() => normalizeWorkspacePath(input)).toThrow(reason);
  });

  it("names the refused path in its message", () => {
    expect(() => normalizeWorkspacePath("../secret.txt")).toThrow('"../secret.txt"');
  });

  it("refuses non-strings and over-long paths", () => {
    expect(() => normalizeWorkspacePath(42)).toThrow("expected a string, got number");
    expect(() => normalizeWorkspacePath(null)).toThrow("got null");
    expect(normalizeWorkspacePath("a".repeat(MAX_WORKSPACE_PATH_LENGTH))).toHaveLength(
      MAX_WORKSPACE_PATH_LENGTH,
    );
    expect(() => normalizeWorkspacePath("a".repeat(MAX_WORKSPACE_PATH_LENGTH + 1))).toThrow("longer than");
  });

  it("accepts the root as the empty string only when allowRoot is set", () => {
    expect(normalizeWorkspacePath("", { allowRoot: true })).toBe("");
    expect(normalizeWorkspacePath(".", { allowRoot: true })).toBe("");
    expect(normalizeWorkspacePath("a/..", { allowRoot: true })).toBe("");
    expect(normalizeWorkspacePath("docs/", { allowRoot: true })).toBe("docs");
    expect(() => normalizeWorkspacePath("..", { allowRoot: true })).toThrow("escapes");
  });
});
