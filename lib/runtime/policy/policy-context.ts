/**
 * What a policy rule sees (docs/policies.md#what-a-rule-sees): the call, the run, the time and
 * the batch, declared once as a typed CEL environment so that a rule naming a field that does
 * not exist is refused when the policy is checked, not when a call arrives.
 */
import { Environment } from "@marcbachmann/cel-js";

/** The call a rule is asked about. */
export interface PolicyCall {
  name: string;
  /** The parsed arguments (the policy only sees calls whose arguments passed the tool's schema). */
  arguments: Record<string, unknown>;
  effect: string;
  resourceClass: string;
  /** The MCP server that defines the tool; "" for a tool of the playground's own. */
  server: string;
  /** The operator's trust in that server ("trusted" | "untrusted"); "" for an own tool. */
  trust: string;
  /** The fingerprint of the tool's definition; "" for an own tool. */
  fingerprint: string;
}

/** The run the call belongs to. */
export interface PolicyRun {
  /** Who started the run: their user id, or "" when no person did (a headless run). */
  starter: string;
  /** The name of the agent driving the run, or "" when the run's model is not an outside agent. */
  agent: string;
  metadata: Record<string, string>;
}

/** Everything one rule is evaluated against. */
export interface PolicyContext {
  call: PolicyCall;
  run: PolicyRun;
  /** When the batch was planned. */
  now: Date;
  batch: { size: number; tools: string[] };
}

/** The variables a rule may name, with their CEL types: the one list docs/policies.md documents. */
export const POLICY_VARIABLES = {
  call: {
    name: "string",
    arguments: "map<string, dyn>",
    effect: "string",
    resourceClass: "string",
    server: "string",
    trust: "string",
    fingerprint: "string",
  },
  run: { starter: "string", agent: "string", metadata: "map<string, string>" },
  batch: { size: "int", tools: "list<string>" },
} as const;

/** The CEL environment every rule compiles in: only the variables above, nothing undeclared. */
export function createPolicyEnvironment(): Environment {
  return new Environment({ unlistedVariablesAreDyn: false })
    .registerVariable({ name: "call", schema: { ...POLICY_VARIABLES.call } })
    .registerVariable({ name: "run", schema: { ...POLICY_VARIABLES.run } })
    .registerVariable({ name: "batch", schema: { ...POLICY_VARIABLES.batch } })
    .registerVariable("now", "google.protobuf.Timestamp");
}

/** The context as CEL wants it: integers as BigInt. */
export function toCelBindings(context: PolicyContext): Record<string, unknown> {
  return {
    call: context.call,
    run: context.run,
    now: context.now,
    batch: { size: BigInt(context.batch.size), tools: context.batch.tools },
  };
}
