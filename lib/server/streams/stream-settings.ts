import { DEFAULT_SSE_BUFFER_BYTES, SSE_HIGH_WATER_BYTES } from "@/lib/server/streams/sse-channel";

/** The bounds on this instance's event streams (run pages and inboxes); read from its environment. */
export interface StreamSettings {
  /** The most streams one person (all their tabs, sessions and tokens) may hold open on this instance. */
  perIdentity: number;
  /** The most streams this instance holds open in all. */
  perInstance: number;
  /** The most bytes a stream may leave unread before it is dropped (its reader resumes). */
  bufferBytes: number;
}

type Environment = Record<string, string | undefined>;

export const DEFAULT_STREAMS_PER_IDENTITY = 32;
export const DEFAULT_STREAMS_PER_INSTANCE = 1_000;

/** A setting that cannot be used: the message names the variable and what it must be. */
export class StreamSettingsError extends Error {}

function readWholeNumber(env: Environment, name: string, fallback: number, minimum: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) {
    throw new StreamSettingsError(`${name} must be a whole number, at least ${minimum} (got "${raw}").`);
  }
  return value;
}

/**
 * `PLAYGROUND_STREAMS_PER_IDENTITY` (default 32), `PLAYGROUND_STREAMS_PER_INSTANCE`
 * (default 1000) and `PLAYGROUND_STREAM_BUFFER_BYTES` (default 256 KiB, at
 * least the 64 KiB a replay fills before it waits). An instance's streams hold
 * at most about perInstance × bufferBytes unread (256 MB by default).
 */
export function readStreamSettings(env: Environment = process.env): StreamSettings {
  return {
    perIdentity: readWholeNumber(env, "PLAYGROUND_STREAMS_PER_IDENTITY", DEFAULT_STREAMS_PER_IDENTITY, 1),
    perInstance: readWholeNumber(env, "PLAYGROUND_STREAMS_PER_INSTANCE", DEFAULT_STREAMS_PER_INSTANCE, 1),
    bufferBytes: readWholeNumber(
      env,
      "PLAYGROUND_STREAM_BUFFER_BYTES",
      DEFAULT_SSE_BUFFER_BYTES,
      SSE_HIGH_WATER_BYTES,
    ),
  };
}
