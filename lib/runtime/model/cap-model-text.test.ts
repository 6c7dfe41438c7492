import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capModelText, MAX_MODEL_TEXT_LENGTH } from "./cap-model-text";

describe("a model's text", () => {
  it("is kept as it is when it fits", () => {
    expect(capModelText(null)).toBeNull();
    const fits = "x".repeat(MAX_MODEL_TEXT_LENGTH);
    expect(capModelText(fits)).toBe(fits);
  });

  it("is cut to the limit with a marker saying how long it was, never inside a character", () => {
    const huge = `${"a".repeat(MAX_MODEL_TEXT_LENGTH - 100)}${"😀".repeat(1_000_000)}`;
    const kept = capModelText(huge) ?? "";
    expect(kept.length).toBeLessThanOrEqual(MAX_MODEL_TEXT_LENGTH);
    expect(kept).toMatch(
      /\n\[… the model's text was cut here: it was 2,099,900 characters long, and a run keeps at most 100,000\]$/,
    );
    expect(huge.startsWith(kept.slice(0, kept.indexOf("\n[…")))).toBe(true);
    expect(kept).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it("kept once, is kept as it is again (a replay of a recorded run)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 * MAX_MODEL_TEXT_LENGTH }), (length) => {
        const once = capModelText("b".repeat(length));
        expect(capModelText(once)).toBe(once);
      }),
      { numRuns: 30 },
    );
  });
});
