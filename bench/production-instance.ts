// A production server (`npm start`) of the build in .next, started by the bench or the load
// generator on a database of theirs, and stopped again.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { findFreePort } from "@/lib/server/testing/free-port";
import { productionStart } from "@/lib/server/testing/production-start";

export interface ProductionInstance {
  child: ChildProcess;
  url: string;
}

const BUILD_ID = path.join(".next", "BUILD_ID");

/** When the production build in .next was made, or null when there is none (`npm run build` makes it). */
export function productionBuildTime(): Date | null {
  return existsSync(BUILD_ID) ? statSync(BUILD_ID).mtime : null;
}

/** Starts one on a free port with `env` over this process's, and resolves once it answers `/api/health`. */
export async function startProductionInstance(env: Record<string, string>): Promise<ProductionInstance> {
  const port = await findFreePort();
  const { command, args } = productionStart(port);
  const child = spawn(command, args, {
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server on ${port} exited with ${child.exitCode}`);
    const healthy = await fetch(`${url}/api/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return { child, url };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Stops it as an operator would (SIGTERM: the open requests finish), and resolves once it has exited. */
export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
