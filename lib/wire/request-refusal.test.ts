import { describe, expect, it } from "vitest";
import { scenarioSchema } from "@/lib/runtime";
import { RequestRefusal, validateInput } from "./request-refusal";

const SCENARIO = { name: "x", model: { kind: "scripted", turns: [] } };

/** The refusal `validateInput` throws for `value`, as the client reads it. */
function refusalOf(value: unknown): { status: number; json: string; body: RequestRefusal["body"] } {
  try {
    validateInput(value, scenarioSchema);
  } catch (error) {
    if (!(error instanceof RequestRefusal)) throw error;
    return { status: error.status, json: JSON.stringify(error.body), body: error.body };
  }
  throw new Error("expected the value to be refused");
}

const manyKeys = (count: number, value: (index: number) => unknown) =>
  Object.fromEntries(Array.from({ length: count }, (_, index) => [`file${index}.txt`, value(index)]));

describe("a refusal says a bounded amount, whatever the body", () => {
  it("lists the first 20 of 100,000 issues and how many more, in issues and message alike", () => {
    const refusal = refusalOf({ ...SCENARIO, workspace: manyKeys(100_000, (index) => index) });
    expect(refusal.status).toBe(400);
    expect(refusal.json.length).toBeLessThan(4_000);
    const issues = refusal.body.error.issues ?? [];
    expect(issues).toHaveLength(21);
    expect(issues[0]).toEqual({ path: 'workspace["file0.txt"]', message: "must be text (a JSON string)" });
    expect(issues[19]?.path).toBe('workspace["file19.txt"]');
    expect(issues[20]).toEqual({ path: "", message: "… and 99,980 more issues" });
    expect(refusal.body.error.message).toMatch(
      /^Invalid request: workspace\["file0\.txt"\]: must be text \(a JSON string\); .*; workspace\["file19\.txt"\]: must be text \(a JSON string\); … and 99,980 more issues$/,
    );
  });

  it("names ten of 150,000 unknown fields and counts the rest", () => {
    const unknown = Object.fromEntries(Array.from({ length: 150_000 }, (_, index) => [`k${index}`, 1]));
    const refusal = refusalOf({ ...SCENARIO, ...unknown });
    expect(refusal.json.length).toBeLessThan(1_000);
    expect(refusal.body.error.issues).toEqual([
      {
        path: "",
        message:
          'has fields this format does not have: "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9" and 149,990 more fields',
      },
    ]);
  });

  it("cuts a key of a megabyte to 64 characters, in a message and in a path", () => {
    const key = "k".repeat(1_000_000);
    const cut = `${"k".repeat(64)}…`;
    const unknownField = refusalOf({ ...SCENARIO, [key]: 1 });
    expect(unknownField.body.error.issues).toEqual([
      { path: "", message: `has a field this format does not have: "${cut}"` },
    ]);
    const badFile = refusalOf({ ...SCENARIO, workspace: { [key]: 1 } });
    expect(badFile.body.error.issues).toEqual([
      { path: `workspace["${cut}"]`, message: "must be text (a JSON string)" },
    ]);
    for (const refusal of [unknownField, badFile]) expect(refusal.json.length).toBeLessThan(1_000);
  });

  it("cuts a schema's own message or path that echoes a megabyte to 1,000 characters", () => {
    const refusal = RequestRefusal.invalid([{ path: "p".repeat(1_000_000), message: "m".repeat(1_000_000) }]);
    expect(refusal.body.error.issues).toEqual([
      { path: `${"p".repeat(1_000)}…`, message: `${"m".repeat(1_000)}…` },
    ]);
    expect(JSON.stringify(refusal.body).length).toBeLessThan(5_000);
  });

  it("says 20 issues as it always did, with nothing about more", () => {
    const issues = Array.from({ length: 20 }, (_, index) => ({ path: `f${index}`, message: "is required" }));
    const refusal = RequestRefusal.invalid(issues);
    expect(refusal.body.error.issues).toEqual(issues);
    expect(refusal.body.error.message).toBe(
      `Invalid request: ${issues.map((issue) => `${issue.path}: is required`).join("; ")}`,
    );
    const one = RequestRefusal.invalid([{ path: "", message: "the body is not valid JSON" }]);
    expect(one.body.error.message).toBe("Invalid request: (body): the body is not valid JSON");
  });
});
