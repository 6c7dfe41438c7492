import { describe, expect, it } from "vitest";
import { ToolError } from "../errors";
import { createScriptedModel, ScriptExhaustedError } from "./scripted-model";

const request = (completionIndex: number, signal?: AbortSignal) => ({
  transcript: [],
  tools: [],
  completionIndex,
  signal,
});

describe("the scripted model", () => {
  it("answers completion N with turn N, serialising object arguments", async () => {
    const model = createScriptedModel([{ calls: [{ name: "read_file", arguments: { path: "a" } }] }]);
    expect(await model.complete(request(0))).toEqual({
      text: null,
      calls: [{ name: "read_file", arguments: '{"path":"a"}' }],
    });
    await expect(model.complete(request(1))).rejects.toSatisfy((error) =>
      ScriptExhaustedError.isInstance(error),
    );
  });

  it("takes a turn's delayMs to answer, and stops waiting when the run is cancelled", async () => {
    const model = createScriptedModel([{ calls: [], delayMs: 60 }]);
    const started = Date.now();
    await model.complete(request(0));
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);

    const cancel = new AbortController();
    const waiting = model.complete(request(0, cancel.signal));
    cancel.abort();
    await expect(waiting).rejects.toSatisfy((error) => ToolError.isInstance(error));
  });
});
