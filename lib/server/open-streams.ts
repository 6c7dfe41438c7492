import "server-only";
import type { SseChannel } from "@/lib/http/sse";

// On globalThis: every route bundle of this process must see the same set.
const globalForStreams = globalThis as typeof globalThis & { toolPlaygroundStreams?: Set<SseChannel> };

function openStreams(): Set<SseChannel> {
  globalForStreams.toolPlaygroundStreams ??= new Set();
  return globalForStreams.toolPlaygroundStreams;
}

/** Tracks an open run event stream; returns the function that forgets it. */
export function registerStream(channel: SseChannel): () => void {
  openStreams().add(channel);
  return () => openStreams().delete(channel);
}

/**
 * Ends every open run event stream, as a restart or a proxy timeout would.
 * Browsers reconnect with `Last-Event-ID`; fault injection uses it to prove
 * that they resume without a gap.
 */
export function dropOpenStreams(): number {
  const streams = [...openStreams()];
  for (const channel of streams) channel.close();
  return streams.length;
}
