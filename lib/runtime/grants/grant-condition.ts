/**
 * A grant's condition (docs/policies.md#grants): a CEL expression checked by the policy module's
 * checker, over what a policy rule sees plus `args`, the call's arguments, so that
 * `args.path.startsWith("docs/")` reads as it is meant.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { createPolicyEnvironment, type PolicyContext, toCelBindings } from "../policy/policy-context";
import { compileCondition } from "../policy/policy-document";

let environment: Environment | null = null;

/** The policy's environment with `args` beside `call`, built once. */
function grantEnvironment(): Environment {
  environment ??= createPolicyEnvironment().registerVariable("args", "map<string, dyn>");
  return environment;
}

export type CompiledGrantCondition = (context: PolicyContext) => boolean;

/** The condition compiled, or what is wrong with it (it does not compile, names unknown fields, is not a boolean). */
export function compileGrantCondition(
  condition: string,
): { ok: true; matches: CompiledGrantCondition } | { ok: false; problem: string } {
  const compiled = compileCondition(grantEnvironment(), condition);
  if ("problem" in compiled) return { ok: false, problem: compiled.problem };
  return {
    ok: true,
    // A condition that fails to evaluate (a missing argument, a type mismatch) covers nothing: fail closed.
    matches: (context) => {
      try {
        return compiled.test({ ...toCelBindings(context), args: context.call.arguments }) === true;
      } catch {
        return false;
      }
    },
  };
}
