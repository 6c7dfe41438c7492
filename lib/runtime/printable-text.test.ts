import { describe, expect, it } from "vitest";
import { MAX_QUOTED_LENGTH, quoteSentText } from "./printable-text";

describe("quoteSentText: a client's text as a message quotes it", () => {
  it("quotes printable text as it is", () => {
    expect(quoteSentText("zzz")).toBe('"zzz"');
    expect(quoteSentText("run 💩 é")).toBe('"run 💩 é"');
  });

  it("escapes quotes, controls and the invisible characters JSON leaves as they are", () => {
    expect(quoteSentText('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quoteSentText("a\u0000b\nc\u0085")).toBe('"a\\u0000b\\nc\\u0085"');
    // A right-to-left override, a zero-width joiner, a line separator, an unpaired surrogate.
    expect(quoteSentText("\u202e💩\u200d\u2028\ud800")).toBe('"\\u202e💩\\u200d\\u2028\\ud800"');
    expect(quoteSentText("\u{e0001}tag")).toBe('"\\udb40\\udc01tag"');
  });

  it("cuts long text with an ellipsis, never within a character", () => {
    const long = quoteSentText("a".repeat(3000));
    expect(long).toBe(`"${"a".repeat(MAX_QUOTED_LENGTH)}…"`);
    expect(quoteSentText("💩".repeat(MAX_QUOTED_LENGTH + 1))).toBe(`"${"💩".repeat(MAX_QUOTED_LENGTH)}…"`);
    expect(quoteSentText("a".repeat(MAX_QUOTED_LENGTH))).toBe(`"${"a".repeat(MAX_QUOTED_LENGTH)}"`);
    expect(quoteSentText("abcdef", 3)).toBe('"abc…"');
  });
});
