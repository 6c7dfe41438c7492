/**
 * Effect helpers: whether a call or a whole pending turn declares a write
 * (docs/decisions.md#what-happens-to-a-decision-in-order, step 7). Fail closed: anything unknown
 * counts as a write.
 */
import type { ToolRegistry } from "../tools/tool-registry";
import type { Effect } from "../types";

/** True for every effect except `READ`. */
export function isWriteEffect(effect: Effect): boolean {
  return effect !== "READ";
}

/**
 * True when any entry of a pending turn declares a write: an entry whose
 * `name` is a registered tool with a non-`READ` effect, an unknown tool name
 * (`effectFor` is `NON_IDEMPOTENT_WRITE`), or an entry too corrupt to yield a
 * call (not an object, or no string `name`). An empty turn declares none.
 */
export function declaresWrite(
  pendingCalls: readonly unknown[],
  registry: Pick<ToolRegistry, "effectFor">,
): boolean {
  return pendingCalls.some((entry) => {
    if (typeof entry !== "object" || entry === null) {
      return true;
    }
    const { name } = entry as { name?: unknown };
    return typeof name !== "string" || isWriteEffect(registry.effectFor(name));
  });
}
