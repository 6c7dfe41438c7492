/**
 * Abort-aware helpers shared by tool executors.
 */
import { ToolError } from "../errors";

/** Throws `ToolError("aborted")` when `signal` has already aborted; otherwise returns. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) {
    throw new ToolError("aborted");
  }
}

/**
 * Resolves after `delayMs` milliseconds, or rejects with `ToolError("aborted")`
 * as soon as `signal` aborts (immediately if it already has). Leaves no timer
 * or listener behind either way.
 */
export function waitForDelay(delayMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ToolError("aborted"));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ToolError("aborted"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, delayMs);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
