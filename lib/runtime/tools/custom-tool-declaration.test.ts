import { afterEach, describe, expect, it, vi } from "vitest";
import { ToolError } from "../errors";
import { createMemoryToolContext } from "../testing";
import { type CustomToolDeclaration, createCustomTool } from "./custom-tool-declaration";

const baseDeclaration: CustomToolDeclaration = {
  name: "deploy",
  description: "Deploy a service",
  resourceClass: "write",
  effect: "NON_IDEMPOTENT_WRITE",
  approval: "always",
  parameters: { type: "object" },
};

afterEach(() => {
  vi.useRealTimers();
});

describe("createCustomTool executor", () => {
  it("returns a fresh copy of the declared result", async () => {
    const tool = createCustomTool({ ...baseDeclaration, result: { deployed: true } });
    const first = (await tool.execute({}, createMemoryToolContext())) as { deployed: boolean };
    first.deployed = false;
    await expect(tool.execute({}, createMemoryToolContext())).resolves.toEqual({ deployed: true });
  });

  it("returns {} when no result is declared, and when error is null or empty", async () => {
    await expect(createCustomTool(baseDeclaration).execute({}, createMemoryToolContext())).resolves.toEqual(
      {},
    );
    await expect(
      createCustomTool({ ...baseDeclaration, error: null }).execute({}, createMemoryToolContext()),
    ).resolves.toEqual({});
    await expect(
      createCustomTool({ ...baseDeclaration, error: "" }).execute({}, createMemoryToolContext()),
    ).resolves.toEqual({});
  });

  it("throws a ToolError with the declared error", async () => {
    const running = createCustomTool({
      ...baseDeclaration,
      error: "quota exceeded",
      result: { ok: true },
    }).execute({}, createMemoryToolContext());
    await expect(running).rejects.toBeInstanceOf(ToolError);
    await expect(running).rejects.toThrow("quota exceeded");
  });

  it("waits delayMs before settling", async () => {
    vi.useFakeTimers();
    let isSettled = false;
    const running = createCustomTool({ ...baseDeclaration, delayMs: 50 })
      .execute({}, createMemoryToolContext())
      .then(() => {
        isSettled = true;
      });
    await vi.advanceTimersByTimeAsync(49);
    expect(isSettled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await running;
    expect(isSettled).toBe(true);
  });

  it("aborts a delay when the signal fires, and refuses to start once aborted", async () => {
    const controller = new AbortController();
    const context = createMemoryToolContext({ signal: controller.signal });
    const tool = createCustomTool({ ...baseDeclaration, delayMs: 60_000 });
    const running = tool.execute({}, context);
    controller.abort();
    await expect(running).rejects.toThrow(new ToolError("aborted"));
    await expect(createCustomTool(baseDeclaration).execute({}, context)).rejects.toThrow("aborted");
  });
});
