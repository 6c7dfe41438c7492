import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * A child process's stdout, line by line, for tests that drive a process (an example agent, the
 * fake model server) and wait for what it prints: `find` resolves with the first line matching,
 * however late it comes, and fails with everything printed once the process exits without it.
 */
export function linesOf(child: ChildProcess) {
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    lines,
    async find(pattern: RegExp): Promise<RegExpExecArray> {
      for (;;) {
        for (const line of lines) {
          const found = pattern.exec(line);
          if (found) return found;
        }
        if (child.exitCode !== null)
          throw new Error(`exited ${child.exitCode} before ${pattern}: ${lines.join("\n")}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          child.once("exit", () => resolve());
        });
      }
    },
  };
}
