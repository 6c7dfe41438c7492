/**
 * A policy document (docs/policies.md#the-policy-document): YAML (JSON is accepted, being YAML),
 * a list of rules in CEL. `checkPolicy` is the one checker, used at publish, by the backtest and
 * by anyone who wants to know what is wrong with a document: it either compiles every rule or
 * lists every problem with its line.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { Environment as CelEnvironment } from "@marcbachmann/cel-js";
import { isMap, isSeq, LineCounter, parseDocument, type YAMLMap } from "yaml";
import { findUnsafeMatchesPattern } from "./condition-patterns";
import { createPolicyEnvironment } from "./policy-context";

export const POLICY_EFFECTS = ["allow", "require", "deny"] as const;
export type PolicyEffect = (typeof POLICY_EFFECTS)[number];

/** Who may decide a gate a `require` rule asks for. */
export interface PolicyApprovers {
  /** The role whose members may decide; "approver" (every approver or admin) when nothing else is named. */
  role: "approver" | "admin" | null;
  people: string[];
  groups: string[];
}

/** One rule, compiled. */
export interface PolicyRule {
  name: string;
  /** The 1-based line of the rule in the document. */
  line: number;
  /** The CEL condition as written; null when the rule has none (it matches every call). */
  when: string | null;
  /** The line of its condition (the rule's own line when it has none). */
  whenLine: number;
  effect: PolicyEffect;
  /** deny: what the model is told. */
  message: string | null;
  /** require: who may decide, and how many distinct approvers it takes. */
  approvers: PolicyApprovers | null;
  quorum: number | null;
  /** Evaluates the condition; throws on a runtime error (a missing argument, a type mismatch). */
  test: ((bindings: Record<string, unknown>) => unknown) | null;
}

export interface CompiledPolicy {
  description: string | null;
  rules: PolicyRule[];
}

/** What is wrong with a document, where. `line` is 1-based; 0 when the document has no usable position. */
export interface PolicyProblem {
  line: number;
  path: string;
  message: string;
}

export type PolicyCheck = { ok: true; policy: CompiledPolicy } | { ok: false; problems: PolicyProblem[] };

/** At most this many rules and this many characters: a policy is read by people, and evaluated per call. */
export const MAX_POLICY_RULES = 200;
export const MAX_POLICY_CHARACTERS = 100_000;

const TOP_LEVEL_FIELDS = new Set(["description", "rules"]);
const RULE_FIELDS = new Set(["name", "when", "effect", "message", "approvers", "quorum"]);
const APPROVER_FIELDS = new Set(["role", "people", "groups"]);

/**
 * Checks a document like code: it must parse, have only known fields, every condition must compile
 * against the fields a rule can see (docs/policies.md#what-a-rule-sees) and be a boolean, and every
 * rule must be able to match (not constant false, not after a rule that matches everything, not
 * after a rule with the same condition). Every problem is listed, each with its line.
 */
export function checkPolicy(text: string): PolicyCheck {
  if (text.length > MAX_POLICY_CHARACTERS) {
    return fail([
      { line: 0, path: "", message: `is ${text.length} characters; at most ${MAX_POLICY_CHARACTERS}` },
    ]);
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const lineAt = (offset: number | undefined) =>
    offset === undefined ? 0 : lineCounter.linePos(offset).line;
  if (document.errors.length > 0) {
    return fail(
      document.errors.map((error) => ({
        line: lineAt(error.pos[0]),
        path: "",
        message: `is not valid YAML or JSON: ${error.message.split("\n")[0]}`,
      })),
    );
  }
  const root = document.contents;
  if (!isMap(root)) {
    return fail([
      { line: lineAt(root?.range?.[0]), path: "", message: "must be a mapping with a `rules` list" },
    ]);
  }
  const problems: PolicyProblem[] = [];
  problems.push(...unknownFields(root, TOP_LEVEL_FIELDS, "", lineAt));
  const description = root.get("description");
  if (description !== undefined && typeof description !== "string") {
    problems.push({
      line: lineOf(root, "description", lineAt),
      path: "description",
      message: "must be text",
    });
  }
  const rulesNode = root.get("rules", true);
  if (!isSeq(rulesNode)) {
    problems.push({ line: lineOf(root, "rules", lineAt), path: "rules", message: "must be a list of rules" });
    return fail(problems);
  }
  if (rulesNode.items.length > MAX_POLICY_RULES) {
    problems.push({
      line: lineAt(rulesNode.range?.[0]),
      path: "rules",
      message: `has ${rulesNode.items.length} rules; at most ${MAX_POLICY_RULES}`,
    });
    return fail(problems);
  }
  const environment = createPolicyEnvironment();
  const constants = new CelEnvironment({ unlistedVariablesAreDyn: false });
  const rules: PolicyRule[] = [];
  const names = new Map<string, string>();
  rulesNode.items.forEach((item, index) => {
    const path = `rules[${index}]`;
    const line = lineAt((item as { range?: [number] } | null)?.range?.[0]);
    if (!isMap(item)) {
      problems.push({ line, path, message: "must be a mapping with `name`, `effect` and optionally `when`" });
      return;
    }
    const rule = checkRule(item, path, line, environment, lineAt, problems);
    if (!rule) return;
    const earlier = names.get(rule.name);
    if (earlier !== undefined) {
      problems.push({
        line,
        path: `${path}.name`,
        message: `repeats the name of ${earlier}; names are unique`,
      });
    }
    names.set(rule.name, path);
    rules.push(rule);
  });
  problems.push(...findUnreachableRules(rules, constants));
  if (problems.length > 0) return fail(problems);
  return { ok: true, policy: { description: typeof description === "string" ? description : null, rules } };
}

function checkRule(
  node: YAMLMap,
  path: string,
  line: number,
  environment: Environment,
  lineAt: (offset: number | undefined) => number,
  problems: PolicyProblem[],
): PolicyRule | null {
  const before = problems.length;
  problems.push(...unknownFields(node, RULE_FIELDS, path, lineAt));
  const at = (field: string) => lineOf(node, field, lineAt) || line;
  const name = node.get("name");
  if (typeof name !== "string" || name.trim() === "" || name.length > 100) {
    problems.push({ line: at("name"), path: `${path}.name`, message: "must be text of 1 to 100 characters" });
  }
  const effect = node.get("effect");
  if (!POLICY_EFFECTS.includes(effect as PolicyEffect)) {
    problems.push({
      line: at("effect"),
      path: `${path}.effect`,
      message: `must be one of ${POLICY_EFFECTS.join(", ")}, got ${JSON.stringify(effect ?? null)}`,
    });
  }
  const when = node.get("when");
  let test: PolicyRule["test"] = null;
  if (when !== undefined) {
    if (typeof when !== "string" || when.trim() === "") {
      problems.push({ line: at("when"), path: `${path}.when`, message: "must be a CEL expression (text)" });
    } else {
      const compiled = compileCondition(environment, when);
      if ("problem" in compiled) {
        problems.push({ line: at("when"), path: `${path}.when`, message: compiled.problem });
      } else {
        test = compiled.test;
      }
    }
  }
  const message = node.get("message");
  if (effect === "deny") {
    if (typeof message !== "string" || message.trim() === "" || message.length > 2_000) {
      problems.push({
        line: at("message"),
        path: `${path}.message`,
        message: "a deny rule needs a message (1 to 2000 characters): it is what the model is told",
      });
    }
  } else if (message !== undefined) {
    problems.push({
      line: at("message"),
      path: `${path}.message`,
      message: "only a deny rule has a message",
    });
  }
  let approvers: PolicyApprovers | null = null;
  let quorum: number | null = null;
  if (effect === "require") {
    approvers = checkApprovers(node, path, at, lineAt, problems);
    const rawQuorum = node.get("quorum");
    quorum = rawQuorum === undefined ? 1 : Number(rawQuorum);
    if (!Number.isInteger(quorum) || quorum < 1 || quorum > 10) {
      problems.push({
        line: at("quorum"),
        path: `${path}.quorum`,
        message: "must be a whole number from 1 to 10",
      });
    } else if (
      approvers &&
      approvers.role === null &&
      quorum > approvers.people.length &&
      approvers.groups.length === 0
    ) {
      problems.push({
        line: at("quorum"),
        path: `${path}.quorum`,
        message: `asks for ${quorum} approvers but names only ${approvers.people.length} people: it could never be met`,
      });
    }
  } else {
    for (const field of ["approvers", "quorum"]) {
      if (node.has(field)) {
        problems.push({ line: at(field), path: `${path}.${field}`, message: "only a require rule has it" });
      }
    }
  }
  if (problems.length > before) return null;
  return {
    name: name as string,
    line,
    when: typeof when === "string" ? when : null,
    whenLine: at("when"),
    effect: effect as PolicyEffect,
    message: effect === "deny" ? (message as string) : null,
    approvers,
    quorum,
    test,
  };
}

/**
 * Compiles one CEL condition in `environment`, checked like a rule's `when`: it must compile against
 * the declared variables, be a boolean, and match only literal, safe patterns. Returns its
 * evaluator, or what is wrong with it. Also used for a grant's condition (docs/policies.md#grants).
 */
export function compileCondition(
  environment: Environment,
  condition: string,
): { test: NonNullable<PolicyRule["test"]> } | { problem: string } {
  const checked = environment.check(condition);
  if (!checked.valid) return { problem: `does not compile: ${firstLine(checked.error?.message)}` };
  if (checked.type !== "bool" && checked.type !== "dyn")
    return { problem: `must be a boolean, is ${checked.type}` };
  const evaluate = environment.parse(condition);
  const unsafe = findUnsafeMatchesPattern(evaluate.ast);
  if (unsafe) return { problem: unsafe };
  return { test: (bindings) => evaluate(bindings) };
}

function checkApprovers(
  node: YAMLMap,
  path: string,
  at: (field: string) => number,
  lineAt: (offset: number | undefined) => number,
  problems: PolicyProblem[],
): PolicyApprovers {
  const raw = node.get("approvers", true);
  if (raw === undefined) return { role: "approver", people: [], groups: [] };
  if (!isMap(raw)) {
    problems.push({
      line: at("approvers"),
      path: `${path}.approvers`,
      message: "must be a mapping of role, people, groups",
    });
    return { role: "approver", people: [], groups: [] };
  }
  problems.push(...unknownFields(raw, APPROVER_FIELDS, `${path}.approvers`, lineAt));
  const role = raw.get("role");
  if (role !== undefined && role !== "approver" && role !== "admin") {
    problems.push({
      line: lineOf(raw, "role", lineAt),
      path: `${path}.approvers.role`,
      message: `must be approver or admin, got ${JSON.stringify(role)}`,
    });
  }
  const list = (field: "people" | "groups"): string[] => {
    const value = raw.get(field, true);
    if (value === undefined) return [];
    const items = isSeq(value) ? value.toJSON() : null;
    if (!Array.isArray(items) || !items.every((item) => typeof item === "string" && item.length > 0)) {
      problems.push({
        line: lineOf(raw, field, lineAt),
        path: `${path}.approvers.${field}`,
        message: "must be a list of names",
      });
      return [];
    }
    return items as string[];
  };
  const people = list("people");
  const groups = list("groups");
  const namedRole = role === "approver" || role === "admin" ? role : null;
  return {
    role: namedRole ?? (people.length === 0 && groups.length === 0 ? "approver" : null),
    people,
    groups,
  };
}

/**
 * A rule can never match when its condition is constant false, when an earlier rule matches every
 * call (no condition, or constant true), or when an earlier rule has the same condition.
 */
function findUnreachableRules(rules: readonly PolicyRule[], constants: Environment): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  let catchAll: PolicyRule | null = null;
  const conditions = new Map<string, PolicyRule>();
  rules.forEach((rule, index) => {
    const path = `rules[${index}]`;
    if (catchAll) {
      problems.push({
        line: rule.line,
        path,
        message: `can never match: rule ${JSON.stringify(catchAll.name)} before it matches every call`,
      });
      return;
    }
    const constant = rule.when === null ? true : constantValue(rule.when, constants);
    if (constant === false) {
      problems.push({
        line: rule.whenLine,
        path: `${path}.when`,
        message: "can never match: its condition is always false",
      });
      return;
    }
    if (constant === true) {
      catchAll = rule;
      return;
    }
    const normalized = (rule.when ?? "").replace(/\s+/g, "");
    const same = conditions.get(normalized);
    if (same) {
      problems.push({
        line: rule.whenLine,
        path: `${path}.when`,
        message: `can never match: rule ${JSON.stringify(same.name)} before it has the same condition`,
      });
      return;
    }
    conditions.set(normalized, rule);
  });
  return problems;
}

/** The value of a condition that names no variable, or undefined when it depends on the call. */
function constantValue(when: string, constants: Environment): boolean | undefined {
  if (!constants.check(when).valid) return undefined;
  try {
    const value = constants.evaluate(when, {});
    return typeof value === "boolean" ? value : undefined;
  } catch {
    return undefined;
  }
}

function unknownFields(
  node: YAMLMap,
  known: ReadonlySet<string>,
  path: string,
  lineAt: (offset: number | undefined) => number,
): PolicyProblem[] {
  return node.items.flatMap((pair) => {
    const key = (pair.key as { value?: unknown; range?: [number] } | null) ?? null;
    const name = String(key?.value ?? key);
    if (known.has(name)) return [];
    return [
      {
        line: lineAt(key?.range?.[0]),
        path: path === "" ? name : `${path}.${name}`,
        message: `is not a known field (known: ${[...known].join(", ")})`,
      },
    ];
  });
}

function lineOf(node: YAMLMap, field: string, lineAt: (offset: number | undefined) => number): number {
  const pair = node.items.find((item) => (item.key as { value?: unknown } | null)?.value === field);
  return lineAt((pair?.key as { range?: [number] } | undefined)?.range?.[0]);
}

function firstLine(message: string | undefined): string {
  return (message ?? "unknown error").split("\n")[0] ?? "unknown error";
}

function fail(problems: PolicyProblem[]): PolicyCheck {
  return { ok: false, problems: problems.sort((a, b) => a.line - b.line) };
}
