import { hostname } from "node:os";

/** How this process holds and recovers runs; read from its environment. */
export interface ExecutionSettings {
  /** How long a worker's claim on a run lasts without renewal (renewed every third of it). */
  leaseMs: number;
  /** How often this process looks for runs whose worker is gone. */
  sweepMs: number;
  /** This process's name in `run_recovered` events. */
  instanceId: string;
}

type Environment = Record<string, string | undefined>;

export const DEFAULT_LEASE_MS = 30_000;
export const DEFAULT_SWEEP_MS = 10_000;

/** A setting that cannot be used: the message names the variable and what it must be. */
export class ExecutionSettingsError extends Error {}

function readMilliseconds(env: Environment, name: string, fallback: number, minimum: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) {
    throw new ExecutionSettingsError(
      `${name} must be a whole number of milliseconds, at least ${minimum} (got "${raw}").`,
    );
  }
  return value;
}

/**
 * `PLAYGROUND_LEASE_MS` (default 30 s, at least 100 ms) and
 * `PLAYGROUND_RECOVERY_SWEEP_MS` (default 10 s, at least 50 ms). A run whose
 * worker dies is taken over within about lease + sweep.
 */
export function readExecutionSettings(env: Environment = process.env): ExecutionSettings {
  return {
    leaseMs: readMilliseconds(env, "PLAYGROUND_LEASE_MS", DEFAULT_LEASE_MS, 100),
    sweepMs: readMilliseconds(env, "PLAYGROUND_RECOVERY_SWEEP_MS", DEFAULT_SWEEP_MS, 50),
    instanceId: env.PLAYGROUND_INSTANCE_ID?.trim() || `${hostname()}:${process.pid}`,
  };
}
