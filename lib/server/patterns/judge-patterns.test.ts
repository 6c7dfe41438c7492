import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countInlinePatternChecks, createToolRegistry, readPatternVerdict } from "@/lib/runtime";
import { installProcessTestDatabase } from "@/lib/server/testing/process-test-database";
import { createTestAccounts, type TestAccount } from "@/lib/server/testing/test-accounts";
import { judgePatterns } from "./judge-patterns";
import { getPatternCheckWorker } from "./pattern-check-worker";

let uninstall = async () => {};
let operator: TestAccount;
let startRoute: typeof import("@/app/api/runs/route");

beforeAll(async () => {
  ({ uninstall } = await installProcessTestDatabase());
  ({ operator } = await createTestAccounts(["operator"]));
  startRoute = await import("@/app/api/runs/route");
});
afterAll(() => uninstall());

const toolWith = (name: string, pattern: string) => ({
  name,
  description: "",
  approval: "never" as const,
  resourceClass: "pure_read" as const,
  effect: "READ" as const,
  parameters: { type: "object", properties: { value: { type: "string", pattern } } },
  result: null,
});

const startRun = (pattern: string, name = "custom") =>
  startRoute.POST(
    new Request("http://test/api/runs", {
      method: "POST",
      headers: { "content-type": "application/json", ...operator.headers },
      body: JSON.stringify({
        name: "patterns",
        tools: [toolWith(name, pattern)],
        model: { kind: "scripted", turns: [{ calls: [{ name: "finish", arguments: { summary: "done" } }] }] },
      }),
    }),
  );

describe("catastrophic patterns on the server", () => {
  it("are judged on the worker thread: this thread keeps answering meanwhile", async () => {
    const worker = getPatternCheckWorker();
    const checkedBefore = worker.checked();
    const inlineBefore = countInlinePatternChecks();
    // Proving this pattern unsafe takes the checker its whole budget (250 ms). Were it checked
    // on this thread, the timer could not fire until the check was done.
    const order: string[] = [];
    const ticked = new Promise<void>((resolve) =>
      setTimeout(() => {
        order.push("timer");
        resolve();
      }, 10),
    );
    await Promise.all([
      judgePatterns([{ pattern: "^(g+)+h$", flags: "u" }]).then(() => order.push("judged")),
      ticked,
    ]);
    expect(order).toEqual(["timer", "judged"]);
    expect(worker.checked()).toBe(checkedBefore + 1);
    expect(countInlinePatternChecks()).toBe(inlineBefore);
    expect(readPatternVerdict({ pattern: "^(g+)+h$", flags: "u" })).toMatch(/simplify it/);
    // Compiling the schema now only reads the verdict.
    expect(() => createToolRegistry({ tools: [toolWith("judged", "^(g+)+h$")] })).toThrow(/\^\(g\+\)\+h\$/);
    expect(countInlinePatternChecks()).toBe(inlineBefore);
  });

  it("refuse a run naming the pattern, checked once however often it is sent, never on this thread", async () => {
    const worker = getPatternCheckWorker();
    const inlineBefore = countInlinePatternChecks();
    const checkedBefore = worker.checked();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) => startRun("^(i+)+j$", `evil${index}`)),
    );
    for (const response of responses) {
      expect(response.status).toBe(400);
      const body = await response.json();
      expect(body.error.code).toBe("invalid_request");
      expect(body.error.message).toMatch(
        /pattern "\^\(i\+\)\+j\$" (can take exponential|could not be proven safe)/,
      );
    }
    // Requests that arrived together may each have asked before the first verdict was kept;
    // once it is, nobody asks again.
    const checkedByBurst = worker.checked() - checkedBefore;
    expect(checkedByBurst).toBeGreaterThanOrEqual(1);
    expect((await startRun("^(i+)+j$")).status).toBe(400);
    expect(worker.checked() - checkedBefore).toBe(checkedByBurst);
    expect(countInlinePatternChecks()).toBe(inlineBefore);

    const safe = await startRun("^[a-z]{2}-[0-9]{3}$");
    expect(safe.status).toBe(201);
    expect(countInlinePatternChecks()).toBe(inlineBefore);
  });

  it("share a bounded time per request: the patterns past it are refused without a check", async () => {
    const worker = getPatternCheckWorker();
    // Patterns the checker cannot settle: each runs out its whole 250 ms ("timedOut"). (Patterns it
    // proves unsafe stop early, at its score limit, sooner as its code warms up: with those, how many
    // fit in the budget was a matter of speed, and a test of it flaky.)
    const hard = Array.from({ length: 12 }, (_, index) => ({
      pattern: `^([a-z${index}]{1,30}){1,30}$`,
      flags: "u",
    }));
    const checkedBefore = worker.checked();
    await judgePatterns(hard);
    const checked = worker.checked() - checkedBefore;
    // A request has four times one pattern's budget: four patterns spend it, a fifth may start.
    expect(checked).toBeLessThanOrEqual(5);
    const [first] = hard;
    const last = hard.at(-1);
    if (!first || !last) throw new Error("no patterns");
    expect(readPatternVerdict(first)).toMatch(/could not be proven safe in time/);
    expect(readPatternVerdict(last)).toMatch(/too many patterns/);
  });
});
