/**
 * Class-aware concurrency inside a prefix
 * (docs/planning-rules.md#inside-a-prefix-classes-decide-what-runs-together).
 */
import type { PlanSegment, ResourceClass } from "../types";

/** Classes whose calls may share a wave; every other class runs alone. */
const CONCURRENT_CLASSES: ReadonlySet<ResourceClass | null> = new Set<ResourceClass>(["pure_read", "vision"]);

/**
 * Splits a prefix (valid, ungated calls in batch order) into waves: runs of
 * consecutive `pure_read`/`vision` calls share a wave of at most `cap` calls;
 * a call of any other class (`memory`, `tasks`, `browser`, `write`, and
 * defensively anything else) is a wave of its own, so it starts after every
 * earlier call has settled and every later call waits for it. Waves keep
 * batch order; no call is dropped or repeated. An empty prefix gives no waves.
 */
export function planPrefixWaves(
  calls: ReadonlyArray<{ batchIndex: number; resourceClass: ResourceClass | null }>,
  cap: number,
): Array<Extract<PlanSegment, { kind: "wave" }>> {
  const waves: Array<Extract<PlanSegment, { kind: "wave" }>> = [];
  let current: number[] = [];
  const closeCurrentWave = (): void => {
    if (current.length > 0) {
      waves.push({ kind: "wave", batchIndexes: current });
      current = [];
    }
  };
  for (const call of calls) {
    if (!CONCURRENT_CLASSES.has(call.resourceClass)) {
      closeCurrentWave();
      waves.push({ kind: "wave", batchIndexes: [call.batchIndex] });
      continue;
    }
    current.push(call.batchIndex);
    if (current.length >= cap) {
      closeCurrentWave();
    }
  }
  closeCurrentWave();
  return waves;
}
