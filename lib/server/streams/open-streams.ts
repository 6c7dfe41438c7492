import "server-only";
import { processPart } from "@/lib/server/process-parts";
import type { SseChannel } from "@/lib/server/streams/sse-channel";
import { RequestRefusal } from "@/lib/wire/request-refusal";
import type { StreamSettings } from "./stream-settings";

/** The process's open streams: every route and action bundle of this process must see the same sets. */
type OpenStreams = {
  streams: Set<SseChannel>;
  bySession: Map<string, Set<SseChannel>>;
  /** Streams open per identity (user id), from the moment a route accepts one until it is cleaned up. */
  slotsByIdentity: Map<string, number>;
};

function processStreams(): OpenStreams {
  return processPart("open-streams", () => ({
    streams: new Set(),
    bySession: new Map(),
    slotsByIdentity: new Map(),
  }));
}

function openStreams(): Set<SseChannel> {
  return processStreams().streams;
}

function streamsBySession(): Map<string, Set<SseChannel>> {
  return processStreams().bySession;
}

function slotsByIdentity(): Map<string, number> {
  return processStreams().slotsByIdentity;
}

/** How many event streams (run pages and inboxes) this process has open. */
export function countOpenStreams(): number {
  let count = 0;
  for (const slots of slotsByIdentity().values()) count += slots;
  return count;
}

/** How long a refused client should wait before it asks again, in seconds. */
export const TOO_MANY_STREAMS_RETRY_AFTER_SECONDS = 10;

/**
 * Takes one of the instance's stream slots for `identityId`, or refuses with
 * 429 `too_many_streams` (and `Retry-After`) when that person or the instance
 * already holds as many as the settings allow. Returns the release, which is
 * safe to call more than once.
 */
export function reserveStreamSlot(identityId: string, settings: StreamSettings): () => void {
  const slots = slotsByIdentity();
  const held = slots.get(identityId) ?? 0;
  if (held >= settings.perIdentity) {
    throw tooManyStreams(
      `You already have ${held} event streams open on this server, the most one person may have (PLAYGROUND_STREAMS_PER_IDENTITY=${settings.perIdentity}). Close a tab or an idle client, then retry.`,
    );
  }
  if (countOpenStreams() >= settings.perInstance) {
    throw tooManyStreams(
      `This server already has ${settings.perInstance} event streams open, its limit (PLAYGROUND_STREAMS_PER_INSTANCE). Retry later, or through another instance.`,
    );
  }
  slots.set(identityId, held + 1);
  let isReleased = false;
  return () => {
    if (isReleased) return;
    isReleased = true;
    const left = (slots.get(identityId) ?? 1) - 1;
    if (left > 0) slots.set(identityId, left);
    else slots.delete(identityId);
  };
}

function tooManyStreams(message: string): RequestRefusal {
  return RequestRefusal.of("too_many_streams", message, {
    "retry-after": String(TOO_MANY_STREAMS_RETRY_AFTER_SECONDS),
  });
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
