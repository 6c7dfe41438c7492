import { describe, expect, it } from "vitest";
import { readSignInTarget } from "./sign-in-target";

describe("readSignInTarget", () => {
  it("keeps a path of this app, with its query and fragment", () => {
    expect(readSignInTarget("/runs/1f0c?step=2#calls")).toBe("/runs/1f0c?step=2#calls");
    expect(readSignInTarget("/inbox?q=a\\b")).toBe("/inbox?q=a\\b");
  });

  it("sends anything that is not a path to the playground", () => {
    for (const next of [undefined, ["/runs"], "", "runs", "https://evil.example/", "javascript:alert(1)"]) {
      expect(readSignInTarget(next)).toBe("/");
    }
  });

  it("never sends a person to another site, however the path is written", () => {
    // Each of these is another site to a browser: `\` reads as `/`, and tabs and newlines are dropped.
    for (const next of [
      "//evil.example",
      "/\\evil.example",
      "/\t/evil.example",
      "/\n/evil.example",
      "/\\/evil.example",
    ]) {
      expect(readSignInTarget(next)).toBe("/");
    }
  });
});
