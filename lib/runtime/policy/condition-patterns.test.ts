import { describe, expect, it } from "vitest";
import { compileGrantCondition } from "../grants/grant-condition";
import type { PolicyContext } from "./policy-context";
import { checkPolicy } from "./policy-document";

// A condition's matches() runs a RegExp over what an agent wrote: only literal, safe patterns compile.
const ruleWhen = (when: string) =>
  checkPolicy(`rules:\n  - name: r\n    when: ${JSON.stringify(when)}\n    effect: require\n`);

const REFUSED_PATTERN =
  /^matches\(".*"\): the pattern (can take exponential or polynomial time|could not be proven safe in time)/;

const context = (to: string): PolicyContext => ({
  call: {
    name: "send_email",
    arguments: { to },
    effect: "NON_IDEMPOTENT_WRITE",
    resourceClass: "write",
    server: "",
    trust: "",
    fingerprint: "",
  },
  run: { starter: "", agent: "", metadata: {} },
  now: new Date(),
  batch: { size: 1, tools: ["send_email"] },
});

describe("a condition's matches() pattern", () => {
  it.each([
    'call.arguments.q.matches("^(a+)+$")',
    '"q" in call.arguments && call.arguments.q.matches("(a|a)*b")',
    'call.name == "send_email" && call.arguments.q.matches("^(\\\\w+\\\\s?)*$")',
  ])("is refused in a policy rule when it can backtrack catastrophically: %s", (when) => {
    const checked = ruleWhen(when);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems).toEqual([
      expect.objectContaining({
        path: "rules[0].when",
        // Proven unsafe, or not proven safe within the check's time on a busy machine: refused either way.
        message: expect.stringMatching(REFUSED_PATTERN),
      }),
    ]);
  });

  it("is refused in a grant's condition too, and when the call itself would supply it", () => {
    expect(compileGrantCondition('args.to.matches("^(a+)+$")')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(REFUSED_PATTERN),
    });
    expect(compileGrantCondition("args.to.matches(args.pattern)")).toEqual({
      ok: false,
      problem: "matches() takes its pattern as a literal string, not a value from the call",
    });
  });

  it("compiles when literal and safe, and matches as CEL says", () => {
    const grant = compileGrantCondition('args.to.matches("^[a-z]+@example\\\\.com$")');
    expect(grant.ok).toBe(true);
    if (!grant.ok) return;
    expect(grant.matches(context("ana@example.com"))).toBe(true);
    expect(grant.matches(context("ana@example.org"))).toBe(false);
    expect(ruleWhen('call.arguments.to.matches("@example\\\\.com$")').ok).toBe(true);
  });
});
