import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { findFreePort } from "../../lib/server/testing/free-port";
import { productionStart } from "../../lib/server/testing/production-start";
import { E2E_ADMIN } from "./accounts";
import { allowFor, STEP_BUDGET_MS } from "./budget";

/**
 * A production server (`npm start`) of the suite's build, of its own, for specs that
 * need a fresh server process (what the first request after start-up loads
 * decides which bundle builds the process-wide service). It uses the suite's
 * database setting: the Postgres server when DATABASE_URL is set (the demos'
 * database, or with `checksDatabase` the checks' one, so a check's server never
 * adds runs to what a demo lists), otherwise an in-memory PGlite of its own.
 */
export interface ProductionServer {
  baseURL: string;
  port: number;
  /** The server's process id (the same after it starts itself again with AsyncLocalStorage's frame). */
  pid: number;
  stop(): Promise<void>;
  /** `kill -9`: the process dies at once, mid-whatever, as in a crash. */
  kill(): Promise<void>;
  /** What the server has printed to its standard output so far (its start-up line first). */
  output(): string;
}

/** Waits until the port accepts connections, without sending any HTTP request (which would load a route). */
async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the production server exited with ${child.exitCode}`);
    const isOpen = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (isOpen) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the production server did not listen on ${port} within ${timeoutMs} ms`);
}

export async function startProductionServer(
  options: {
    freshDatabase?: boolean;
    /** On Postgres, the checks' database (the lane the spec runs in) rather than the demos' one. */
    checksDatabase?: boolean;
    seedAdmin?: boolean;
    /** A port to listen on (to restart a killed server where its pages reconnect); a free one by default. */
    port?: number;
    /** A PGlite folder of its own that outlives the process (when the suite runs without Postgres). */
    pgliteDataDir?: string;
    env?: Record<string, string>;
  } = {},
): Promise<ProductionServer> {
  allowFor("serverStart");
  const port = options.port ?? (await findFreePort());
  // Node's own keep-alive (5 s), unlike the suite's servers (keep-alive.ts): `stop` is a graceful
  // SIGTERM, which waits for the connections open then to close.
  const { command, args } = productionStart(port);
  const child = spawn(command, args, {
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      PLAYGROUND_FAULTS: "1",
      // A fresh database is a throwaway PGlite of its own, even when the suite runs on a Postgres server.
      ...(options.freshDatabase || !process.env.DATABASE_URL
        ? { DATABASE_URL: "", PGLITE_DATA_DIR: options.pgliteDataDir ?? "memory://" }
        : {
            PGLITE_DATA_DIR: "",
            ...(options.checksDatabase ? { DATABASE_URL: process.env.E2E_CHECKS_DATABASE_URL ?? "" } : {}),
          }),
      ...(options.seedAdmin === false
        ? { PLAYGROUND_ADMIN_EMAIL: "", PLAYGROUND_ADMIN_PASSWORD: "" }
        : { PLAYGROUND_ADMIN_EMAIL: E2E_ADMIN.email, PLAYGROUND_ADMIN_PASSWORD: E2E_ADMIN.password }),
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout?.on("data", (chunk) => {
    stdout = (stdout + String(chunk)).slice(-16_000);
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  // A server that dies when nobody stopped it says why: its last words go to the test's output.
  let isStopping = false;
  child.once("exit", (code, signal) => {
    if (isStopping) return;
    process.stderr.write(
      `the production server on port ${port} exited by itself (${signal ?? `code ${code}`}); the end of its stderr:\n${stderr.slice(-4_000)}\n`,
    );
  });
  try {
    await waitForPort(port, child, STEP_BUDGET_MS.serverStart);
  } catch (error) {
    isStopping = true;
    child.kill("SIGKILL");
    throw new Error(`${String(error)}\n${stderr}`);
  }
  const ended = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      isStopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill(signal);
    });
  return {
    baseURL: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? 0,
    stop: () => ended("SIGTERM"),
    kill: () => ended("SIGKILL"),
    output: () => stdout,
  };
}

/** The id under which the build registered a server action (what a browser sends as `Next-Action`). */
export function serverActionId(exportedName: string): string {
  const manifest = JSON.parse(
    readFileSync(path.join(".next", "server", "server-reference-manifest.json"), "utf8"),
  ) as { node: Record<string, { exportedName: string }> };
  const entry = Object.entries(manifest.node).find(([, action]) => action.exportedName === exportedName);
  if (!entry) throw new Error(`no server action ${exportedName} in the build`);
  return entry[0];
}

/** Signs a request context in through the sign-in endpoint; its cookie then goes with every request. */
export async function signInOverApi(
  api: APIRequestContext,
  origin: string,
  account = E2E_ADMIN,
): Promise<void> {
  // better-auth, like a browser's own sign-in form, names the page's origin.
  const response = await api.post("/api/auth/sign-in/email", {
    data: { email: account.email, password: account.password },
    headers: { origin },
  });
  if (!response.ok()) throw new Error(`sign-in answered ${response.status()}: ${await response.text()}`);
}
