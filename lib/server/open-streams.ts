import "server-only";
import type { SseChannel } from "@/lib/http/sse";

// On globalThis: every route and action bundle of this process must see the same sets.
const globalForStreams = globalThis as typeof globalThis & {
  toolPlaygroundStreams?: Set<SseChannel>;
  toolPlaygroundSessionStreams?: Map<string, Set<SseChannel>>;
};

function openStreams(): Set<SseChannel> {
  globalForStreams.toolPlaygroundStreams ??= new Set();
  return globalForStreams.toolPlaygroundStreams;
}

function streamsBySession(): Map<string, Set<SseChannel>> {
  globalForStreams.toolPlaygroundSessionStreams ??= new Map();
  return globalForStreams.toolPlaygroundSessionStreams;
}

/** How many event streams (run pages and inboxes) this process has open. */
export function countOpenStreams(): number {
  return openStreams().size;
}

/** Tracks an open event stream (a run's or the inbox's); returns the function that forgets it. */
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

/** Remembers which session opened a stream, so signing out can close it; returns the function that forgets it. */
export function registerSessionStream(sessionId: string, channel: SseChannel): () => void {
  const sessions = streamsBySession();
  let channels = sessions.get(sessionId);
  if (!channels) {
    channels = new Set();
    sessions.set(sessionId, channels);
  }
  channels.add(channel);
  return () => {
    channels.delete(channel);
    if (channels.size === 0) sessions.delete(sessionId);
  };
}

/** Closes every stream this instance holds open for a session that just ended. */
export function closeStreamsOfSession(sessionId: string): void {
  for (const channel of streamsBySession().get(sessionId) ?? []) channel.close();
}
