/**
 * A condition's `matches()` patterns (policy rules and grant conditions, docs/policies.md): CEL runs
 * each as a JavaScript RegExp against a call's arguments, which an agent writes. A pattern with
 * catastrophic backtracking (`^(a+)+$`) would hold the server's event loop for seconds or more on a
 * crafted argument, so a condition compiles only if each pattern is a literal, provably safe as a
 * tool schema's `pattern` must be (lib/runtime/tools/safe-reg-exp.ts). A pattern read from the call
 * itself would be the agent's to choose: refused.
 */
import type { ASTNode } from "@marcbachmann/cel-js";
import {
  checkPatternNow,
  PATTERN_CHECK_BUDGET_MS,
  readPatternVerdict,
  recordPatternCheck,
} from "../tools/safe-reg-exp";

/** What is wrong with the first `matches()` pattern that may not run, or null when all may. */
export function findUnsafeMatchesPattern(ast: ASTNode): string | null {
  for (const pattern of findMatchesPatterns(ast)) {
    if (pattern.op !== "value" || typeof pattern.args !== "string") {
      return "matches() takes its pattern as a literal string, not a value from the call";
    }
    // CEL builds `new RegExp(pattern)`: no flags.
    const regExp = { pattern: pattern.args, flags: "" };
    let verdict = readPatternVerdict(regExp);
    if (verdict === undefined)
      verdict = recordPatternCheck(regExp, checkPatternNow(regExp, PATTERN_CHECK_BUDGET_MS));
    if (verdict) return `matches(${JSON.stringify(pattern.args.slice(0, 80))}): the pattern ${verdict}`;
  }
  return null;
}

/** The pattern operand of every `s.matches(p)` in the expression. */
function findMatchesPatterns(root: ASTNode): ASTNode[] {
  const found: ASTNode[] = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 256 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    const node = value as ASTNode;
    // CEL has `s.matches(p)` only (a function-style `matches(s, p)` does not compile).
    if (node.op === "rcall" && node.args[0] === "matches") {
      const [pattern] = node.args[2];
      if (pattern) found.push(pattern);
    }
    if ("args" in node) visit(node.args, depth + 1);
  };
  visit(root, 0);
  return found;
}
