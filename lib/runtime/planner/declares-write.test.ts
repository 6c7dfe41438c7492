import { describe, expect, it } from "vitest";
import { createToolRegistry } from "../tools/tool-registry";
import { declaresWrite, isWriteEffect } from "./declares-write";

describe("effect helpers", () => {
  it("treats every effect but READ as a write", () => {
    expect(isWriteEffect("READ")).toBe(false);
    expect(isWriteEffect("IDEMPOTENT_WRITE")).toBe(true);
    expect(isWriteEffect("NON_IDEMPOTENT_WRITE")).toBe(true);
  });

  it("finds a write in a pending turn, failing closed on unknown or corrupt entries", () => {
    const registry = createToolRegistry();
    expect(declaresWrite([], registry)).toBe(false);
    expect(declaresWrite([{ name: "read_file" }, { name: "memory_get" }, { name: "finish" }], registry)).toBe(
      false,
    );
    expect(declaresWrite([{ name: "read_file" }, { name: "memory_set" }], registry)).toBe(true);
    expect(declaresWrite([{ name: "read_file" }, { name: "no_such_tool" }], registry)).toBe(true);
    expect(declaresWrite([{ name: "read_file" }, null], registry)).toBe(true);
    expect(declaresWrite([{ name: 42 }], registry)).toBe(true);
    expect(declaresWrite(["read_file"], registry)).toBe(true);
  });
});
