import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HOW_IT_WORKS } from "./how-it-works-text";

describe("the How this works panel", () => {
  it("says exactly what docs/planning-rules.md says under “In short”", () => {
    const docs = readFileSync(new URL("../../docs/planning-rules.md", import.meta.url), "utf8");
    const start = docs.indexOf("## In short");
    const inShort = docs.slice(start, docs.indexOf("\n## ", start + 1));
    for (const { term, text } of HOW_IT_WORKS) expect(inShort).toContain(`- **${term}**: ${text}`);
  });
});
